// Package ownfile is the one way the module creates, replaces and opens
// the files it writes (outputs, archives, pages, round stores, journals),
// so that a file or a link someone else planted is never written through
// nor replayed as root.
//
// The rules:
//
//   - A file is replaced whole (WriteFile): written to a new temporary
//     name created with O_EXCL|O_NOFOLLOW in the target's own folder,
//     fsynced, and renamed over the name. A link planted at the name or
//     at any temporary name is replaced or refused, never followed.
//   - A file opened to append or to replay (Open) is opened with
//     O_NOFOLLOW relative to its checked folder, and kept only when it is
//     a regular file with one link, owned by the running euid, and not
//     writable by group or others. Otherwise the error is an *Error
//     naming the file, its owner and mode.
//   - The folder written into is not a symbolic link, is owned by the
//     running euid or by root, and is not writable by group or others,
//     unless it has the sticky bit. In a sticky folder (/tmp, /var/tmp,
//     mode 1777) others cannot rename or remove our files; they can only
//     plant new names, which the two rules above refuse or replace, so
//     writing there is allowed. A folder others can write without the
//     sticky bit is refused: they could swap our files under us.
//   - A private folder (MkdirPrivate, CheckPrivateDir; the peer's journal
//     folder) must also be owned by the running euid itself, and a sticky
//     folder is not enough.
//
// The folders above the one written into are taken as the path names
// them.
//
// Similar to: install -m 0644 FILE DEST (a temporary and a rename), and
// OpenSSH's StrictModes checks of ~/.ssh
package ownfile

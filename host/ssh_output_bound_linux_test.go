package host

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// What a remote command prints (50000 lines of 1000 bytes, 49999 newlines) is bounded by default: 50 MB of output
// keeps at most SSHConfig.MaxOutputBytes in memory, the rest counted.
func TestSSHOutputBoundedByDefault(t *testing.T) {
	d := startSSHD(t)
	_, signer := keySigner(t, d.clientKey)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const bound = 1 << 20
	s, err := DialSSH(ctx, d.addr, SSHConfig{User: "root", KnownHostsFiles: []string{d.knownHosts}, Signers: []ssh.Signer{signer}, MaxOutputBytes: bound})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := Run(ctx, s, Cmd{Argv: []string{"sh", "-c", "head -c 50000000 /dev/zero | tr '\\0' 'x' | fold -w 1000"}})
	if err != nil {
		t.Fatal(err)
	}
	lines, dropped := p.Stdout().Dropped()
	if n := len(p.Stdout().Bytes()); n > bound || lines == 0 || n+dropped != 50000000+49999 {
		t.Errorf("kept %d bytes, dropped %d lines (%d bytes); want at most %d kept, the rest counted", n, lines, dropped, bound)
	}
	if s.maxOutput != bound || newSSH(nil, "", "", 0, 0).maxOutput != DefaultSSHMaxOutputBytes {
		t.Errorf("bounds %d, default %d", s.maxOutput, newSSH(nil, "", "", 0, 0).maxOutput)
	}
}

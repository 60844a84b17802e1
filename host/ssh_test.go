package host

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// The host key algorithms asked for put the known key's type first.
func TestKnownAlgorithms(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ssh.NewPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "known_hosts")
	line := knownhosts.Line([]string{knownhosts.Normalize("10.0.0.1:2222")}, pub)
	if err := os.WriteFile(file, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check, algos, err := SSHConfig{KnownHostsFiles: []string{file}}.hostKeyCheck("10.0.0.1:2222")
	if err != nil {
		t.Fatal(err)
	}
	if len(algos) < 2 || algos[0] != ssh.KeyAlgoECDSA256 || !slices.Contains(algos, ssh.KeyAlgoED25519) || slices.Index(algos[1:], ssh.KeyAlgoECDSA256) >= 0 {
		t.Errorf("algorithms %v: want ecdsa-sha2-nistp256 first, once, and the others after", algos)
	}
	if got := knownAlgorithms(check, "10.0.0.2:22"); got != nil {
		t.Errorf("unknown host: %v, want the defaults (nil)", got)
	}
	if _, _, err := (SSHConfig{KnownHostsFiles: []string{filepath.Join(t.TempDir(), "missing")}}).hostKeyCheck("h:22"); err == nil {
		t.Error("a missing known_hosts file was accepted")
	}
}

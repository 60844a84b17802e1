package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// demoKeys are made fresh for each demo run: the far guest's host key
// (pinned in the near guest's known_hosts) and root's login key.
type demoKeys struct {
	hostKey, clientKey     []byte // OpenSSH private keys
	hostPub                []byte // the host key's .pub (sshd checks they match)
	knownHosts, authorized []byte
}

func newDemoKeys(farAddr string) (demoKeys, error) {
	var k demoKeys
	hostPub, hostPriv, err := newKey()
	if err != nil {
		return k, err
	}
	clientPub, clientPriv, err := newKey()
	if err != nil {
		return k, err
	}
	k.hostKey, k.clientKey = hostPriv, clientPriv
	k.hostPub = ssh.MarshalAuthorizedKey(hostPub)
	k.knownHosts = []byte(knownhosts.Line([]string{farAddr}, hostPub) + "\n")
	k.authorized = ssh.MarshalAuthorizedKey(clientPub)
	return k, nil
}

func newKey() (ssh.PublicKey, []byte, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return nil, nil, err
	}
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	return sp, pem.EncodeToMemory(block), nil
}

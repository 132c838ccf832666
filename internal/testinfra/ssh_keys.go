package testinfra

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"

	"golang.org/x/crypto/ssh"
)

// newEd25519Key generates a fresh ed25519 key and returns it as a signer and as an unencrypted
// "OPENSSH PRIVATE KEY" PEM block, which both OpenSSH (ssh -i) and ssh.ParsePrivateKey (go-git)
// read.
func newEd25519Key() (ssh.Signer, []byte, error) {
	_, private, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate ed25519 key: %w", err)
	}
	signer, err := ssh.NewSignerFromKey(private)
	if err != nil {
		return nil, nil, fmt.Errorf("wrap ed25519 key as SSH signer: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(private, "kratix-testinfra")
	if err != nil {
		return nil, nil, fmt.Errorf("marshal ed25519 key: %w", err)
	}
	return signer, pem.EncodeToMemory(block), nil
}

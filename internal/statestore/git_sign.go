package statestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/hiddeco/sshsig"
	"golang.org/x/crypto/ssh"
)

// Signing formats of a git store's commits, named as git's gpg.format names them.
const (
	SigningOpenPGP = "openpgp"
	SigningSSH     = "ssh"
)

// SigningFormats lists the formats NewCommitSigner accepts.
var SigningFormats = []string{SigningSSH, SigningOpenPGP}

// sshSigNamespace is the namespace git signs and verifies commits in (`ssh-keygen -Y sign -n git`).
const sshSigNamespace = "git"

// CommitSigner signs a commit object as encoded without its signature, and returns the armored
// signature that git keeps in the commit's gpgsig header: an OpenPGP signature block or an SSH
// signature ("-----BEGIN SSH SIGNATURE-----").
type CommitSigner interface {
	Sign(message io.Reader) ([]byte, error)
}

// SigningKeyError is a signing key that cannot be used. Key names the secret key to fix:
// "signing_key" or "signing_key_passphrase". OtherFormat is set when the key is one of the other
// format: the format, not the key, is what to fix.
type SigningKeyError struct {
	Key         string
	Err         error
	OtherFormat bool
}

func (e *SigningKeyError) Error() string { return e.Key + ": " + e.Err.Error() }
func (e *SigningKeyError) Unwrap() error { return e.Err }

// NewCommitSigner reads a signing key of the given format: an armored OpenPGP private key, or an
// OpenSSH or PEM private key for SSH signatures. passphrase decrypts an encrypted key; it is
// ignored for a key that is not encrypted. The error never quotes the key.
func NewCommitSigner(format, key, passphrase string) (CommitSigner, error) {
	if strings.TrimSpace(key) == "" {
		return nil, &SigningKeyError{Key: "signing_key", Err: errors.New("is empty: commits cannot be signed without a key")}
	}
	switch format {
	case SigningSSH:
		return newSSHSigner(key, passphrase)
	case SigningOpenPGP:
		return newOpenPGPSigner(key, passphrase)
	}
	return nil, fmt.Errorf("signing format %q is not supported; use %q or %q", format, SigningSSH, SigningOpenPGP)
}

// sshSigner makes SSH signatures in git's format (the sshsig format of `ssh-keygen -Y sign`, in
// namespace "git", over a SHA-512 digest as git asks for).
type sshSigner struct{ signer ssh.Signer }

func newSSHSigner(key, passphrase string) (*sshSigner, error) {
	if strings.Contains(key, "BEGIN PGP ") {
		return nil, &SigningKeyError{Key: "signing_key", OtherFormat: true, Err: errors.New(`holds an OpenPGP key, but the signing format is "ssh"; set format = "openpgp"`)}
	}
	signer, err := ssh.ParsePrivateKey([]byte(key))
	var missing *ssh.PassphraseMissingError
	switch {
	case errors.As(err, &missing) && passphrase == "":
		return nil, &SigningKeyError{Key: "signing_key_passphrase", Err: errors.New("is missing: signing_key is encrypted")}
	case errors.As(err, &missing):
		signer, err = ssh.ParsePrivateKeyWithPassphrase([]byte(key), []byte(passphrase))
		if err != nil {
			return nil, &SigningKeyError{Key: "signing_key_passphrase", Err: errors.New("does not decrypt signing_key")}
		}
	case err != nil:
		return nil, &SigningKeyError{Key: "signing_key", Err: errors.New("is not an SSH private key (OpenSSH or PEM format, the content of the file, not its path)")}
	}
	return &sshSigner{signer: signer}, nil
}

func (s *sshSigner) Sign(message io.Reader) ([]byte, error) {
	sig, err := sshsig.Sign(message, s.signer, sshsig.HashSHA512, sshSigNamespace)
	if err != nil {
		return nil, fmt.Errorf("signing the commit with the SSH key: %w", err)
	}
	return sshsig.Armor(sig), nil
}

// openPGPSigner makes detached, armored OpenPGP signatures, as `gpg --detach-sign --armor` does
// for git.
type openPGPSigner struct{ entity *openpgp.Entity }

func newOpenPGPSigner(key, passphrase string) (*openPGPSigner, error) {
	if strings.Contains(key, "OPENSSH PRIVATE KEY") {
		return nil, &SigningKeyError{Key: "signing_key", OtherFormat: true, Err: errors.New(`holds an SSH key, but the signing format is "openpgp"; set format = "ssh"`)}
	}
	ring, err := openpgp.ReadArmoredKeyRing(strings.NewReader(key))
	if err != nil || len(ring) == 0 {
		return nil, &SigningKeyError{Key: "signing_key", Err: errors.New(`is not an armored OpenPGP private key ("-----BEGIN PGP PRIVATE KEY BLOCK-----", as gpg --export-secret-keys --armor writes it)`)}
	}
	if len(ring) > 1 {
		return nil, &SigningKeyError{Key: "signing_key", Err: fmt.Errorf("holds %d OpenPGP keys; give only the one to sign with", len(ring))}
	}
	entity := ring[0]
	if entity.PrivateKey == nil {
		return nil, &SigningKeyError{Key: "signing_key", Err: errors.New("holds an OpenPGP public key; give the private key (gpg --export-secret-keys --armor)")}
	}
	if isEncrypted(entity) {
		if passphrase == "" {
			return nil, &SigningKeyError{Key: "signing_key_passphrase", Err: errors.New("is missing: signing_key is encrypted")}
		}
		if err := entity.DecryptPrivateKeys([]byte(passphrase)); err != nil {
			return nil, &SigningKeyError{Key: "signing_key_passphrase", Err: errors.New("does not decrypt signing_key")}
		}
	}
	s := &openPGPSigner{entity: entity}
	// A key that cannot sign (expired, revoked, or without a signing subkey) fails here rather
	// than at the first commit.
	if _, err := s.Sign(strings.NewReader("")); err != nil {
		return nil, &SigningKeyError{Key: "signing_key", Err: fmt.Errorf("cannot sign: %v", err)}
	}
	return s, nil
}

func isEncrypted(e *openpgp.Entity) bool {
	if e.PrivateKey != nil && e.PrivateKey.Encrypted {
		return true
	}
	for _, sub := range e.Subkeys {
		if sub.PrivateKey != nil && sub.PrivateKey.Encrypted {
			return true
		}
	}
	return false
}

func (s *openPGPSigner) Sign(message io.Reader) ([]byte, error) {
	var b bytes.Buffer
	if err := openpgp.ArmoredDetachSign(&b, s.entity, message, nil); err != nil {
		return nil, fmt.Errorf("signing the commit with the OpenPGP key: %w", err)
	}
	return b.Bytes(), nil
}

// signCommit sets c's signature: signer's signature of c encoded without one, which is what
// git verifies it against.
func signCommit(c *object.Commit, signer CommitSigner) error {
	payload := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(payload); err != nil {
		return fmt.Errorf("encoding the commit to sign: %w", err)
	}
	r, err := payload.Reader()
	if err != nil {
		return err
	}
	sig, err := signer.Sign(r)
	if err != nil {
		return err
	}
	c.PGPSignature = string(sig)
	return nil
}

// gitSigner is the signer of a store's configuration: nil when it does not sign. Its error is a
// configuration error (KindConfig) that names the secret key to fix.
func gitSigner(cfg GitConfig) (CommitSigner, error) {
	if cfg.SigningFormat == "" {
		return nil, nil
	}
	signer, err := NewCommitSigner(cfg.SigningFormat, cfg.SigningKey, cfg.SigningPassphrase)
	if err != nil {
		return nil, &Error{Kind: KindConfig, Err: fmt.Errorf("signing commits: %w", err)}
	}
	return signer, nil
}

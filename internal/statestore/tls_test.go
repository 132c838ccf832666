package statestore

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io/fs"
	"math/big"
	"testing"
	"time"
)

// These tests prove that TLS is verified by default and that ca_certificate, given as PEM
// content, is what makes a server trusted: against testinfra's HTTPS git server and HTTPS MinIO,
// each with a certificate signed by a CA of its own. Three cases for each backend: that CA given
// (works), no CA (KindTLS), and the PEM of another CA (KindTLS: giving a CA must add a root, not
// turn verification off).

// unrelatedCA is the PEM of a fresh self-signed CA that signed nothing the servers present.
func unrelatedCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "unrelated test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// tlsCases are the CAs each test gives the store, and the kind of failure expected ("": none).
func tlsCases(t *testing.T, serverCA string) []struct {
	name string
	ca   string
	want Kind
} {
	return []struct {
		name string
		ca   string
		want Kind
	}{
		{"server CA", serverCA, ""},
		{"no CA", "", KindTLS},
		{"unrelated CA", unrelatedCA(t), KindTLS},
	}
}

func TestGitTLSVerification(t *testing.T) {
	ctx := context.Background()
	srv := testGitServer(t)
	for _, tc := range tlsCases(t, srv.CACertificate) {
		t.Run(tc.name, func(t *testing.T) {
			repo := newServerRepo(t, srv)
			s, err := NewPool().Git(GitConfig{
				URL: srv.HTTPSURL(repo), Username: srv.Username, Password: srv.Password, CACertificate: tc.ca,
			})
			if err != nil {
				t.Fatal(err)
			}
			checkErr := s.Check(ctx)
			_, applyErr := s.Apply(ctx, Change{Message: "Update from: tls", Put: map[string][]byte{"w/a.yaml": []byte("a\n")}})
			content, readErr := srv.ReadFile(repo, "main", "w/a.yaml")

			if tc.want == "" {
				if checkErr != nil || applyErr != nil {
					t.Fatalf("check: %v\napply: %v", checkErr, applyErr)
				}
				if readErr != nil || string(content) != "a\n" {
					t.Fatalf("git CLI read back %q, %v; want %q", content, readErr, "a\n")
				}
				if n := commitCount(t, srv, repo); n != 2 {
					t.Errorf("%d commits, want 2", n)
				}
				return
			}
			t.Logf("check: %v\napply: %v", checkErr, applyErr)
			if kindOf(checkErr) != tc.want || kindOf(applyErr) != tc.want {
				t.Errorf("check gave %v, apply gave %v; want kind %q from both", checkErr, applyErr, tc.want)
			}
			if !errors.Is(readErr, fs.ErrNotExist) {
				t.Errorf("a store that failed TLS verification wrote the file (read back %q, %v)", content, readErr)
			}
			if n := commitCount(t, srv, repo); n != 1 {
				t.Errorf("%d commits, want 1: nothing may be written", n)
			}
		})
	}
}

func TestBucketTLSVerification(t *testing.T) {
	ctx := context.Background()
	srv := testMinIOTLS(t)
	reader, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tlsCases(t, srv.CACertificate) {
		t.Run(tc.name, func(t *testing.T) {
			name := "tls-" + randomSuffix()
			if err := srv.MakeBucket(ctx, name); err != nil {
				t.Fatal(err)
			}
			s, err := NewPool().Bucket(BucketConfig{
				Endpoint: srv.Endpoint, BucketName: name, Insecure: false,
				AccessKeyID: srv.AccessKey, SecretAccessKey: srv.SecretKey, CACertificate: tc.ca,
			})
			if err != nil {
				t.Fatal(err)
			}
			checkErr := s.Check(ctx)
			_, applyErr := s.Apply(ctx, Change{Put: map[string][]byte{"w/a.yaml": []byte("a\n")}})
			got := objects(t, reader, name)

			if tc.want == "" {
				if checkErr != nil || applyErr != nil {
					t.Fatalf("check: %v\napply: %v", checkErr, applyErr)
				}
				if len(got) != 1 || got["w/a.yaml"] != "a\n" {
					t.Fatalf("objects read back over HTTPS = %q, want only w/a.yaml = %q", got, "a\n")
				}
				return
			}
			t.Logf("check: %v\napply: %v", checkErr, applyErr)
			if kindOf(checkErr) != tc.want || kindOf(applyErr) != tc.want {
				t.Errorf("check gave %v, apply gave %v; want kind %q from both", checkErr, applyErr, tc.want)
			}
			if len(got) != 0 {
				t.Errorf("a store that failed TLS verification wrote %q", got)
			}
		})
	}
}

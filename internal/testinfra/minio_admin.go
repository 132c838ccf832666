package testinfra

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7/pkg/signer"
	"github.com/minio/minio-go/v7/pkg/sse"
	"github.com/secure-io/sio-go"
	"golang.org/x/crypto/argon2"
)

// This file speaks the few calls of MinIO's admin API (/minio/admin/v3) that tests need to make
// users with limited rights: add a policy, add a user, attach the policy to the user. The calls
// are signed with the root credentials (SigV4, as any S3 request). The body of add-user carries
// a secret key, so MinIO wants it encrypted with the root secret key: the format is the one
// MinIO's admin client uses, salt (32 bytes) | algorithm id (1 byte) | nonce (8 bytes) | a sio
// stream sealed with an Argon2id key derived from the root secret.

// AddPolicy creates (or replaces) the canned policy name, given as an IAM policy document.
func (m *MinIO) AddPolicy(ctx context.Context, name, policy string) error {
	return m.admin(ctx, "add-canned-policy", url.Values{"name": {name}}, []byte(policy))
}

// AddUser creates an enabled user with no policy attached.
func (m *MinIO) AddUser(ctx context.Context, accessKey, secretKey string) error {
	body, err := json.Marshal(map[string]string{"secretKey": secretKey, "status": "enabled"})
	if err != nil {
		return err
	}
	sealed, err := sealAdminBody(m.SecretKey, body)
	if err != nil {
		return fmt.Errorf("add user %s: %w", accessKey, err)
	}
	return m.admin(ctx, "add-user", url.Values{"accessKey": {accessKey}}, sealed)
}

// AttachPolicy sets the user's policy to the canned policy name.
func (m *MinIO) AttachPolicy(ctx context.Context, policy, user string) error {
	return m.admin(ctx, "set-user-or-group-policy",
		url.Values{"policyName": {policy}, "userOrGroup": {user}, "isGroup": {"false"}}, nil)
}

// AddUserWithPolicy creates a user whose rights are exactly the IAM policy document policy, and
// returns its access and secret keys.
func (m *MinIO) AddUserWithPolicy(ctx context.Context, policy string) (accessKey, secretKey string, err error) {
	accessKey, secretKey = "user-"+randomHex(6), randomHex(16)
	name := "policy-" + accessKey
	if err := m.AddPolicy(ctx, name, policy); err != nil {
		return "", "", err
	}
	if err := m.AddUser(ctx, accessKey, secretKey); err != nil {
		return "", "", err
	}
	// A policy just added is not always known yet to the call that attaches it (seen on a server
	// just started with KMS: XMinioAdminNoSuchPolicy); ask again for a few seconds.
	for wait := 50 * time.Millisecond; ; wait *= 2 {
		err = m.AttachPolicy(ctx, name, accessKey)
		if err == nil || !strings.Contains(err.Error(), "XMinioAdminNoSuchPolicy") || wait > 2*time.Second {
			break
		}
		time.Sleep(wait)
	}
	if err != nil {
		return "", "", err
	}
	return accessKey, secretKey, nil
}

// EncryptBucket sets the bucket's default encryption: "SSE-S3", or "SSE-KMS" with the server's
// static key. The server must have been started with MinIOOptions.KMS.
func (m *MinIO) EncryptBucket(ctx context.Context, bucket, kind string) error {
	var cfg *sse.Configuration
	switch kind {
	case "SSE-S3":
		cfg = sse.NewConfigurationSSES3()
	case "SSE-KMS":
		cfg = sse.NewConfigurationSSEKMS(m.KMSKeyName)
	default:
		return fmt.Errorf("encrypt bucket %s: unknown encryption %q; use SSE-S3 or SSE-KMS", bucket, kind)
	}
	client, err := m.Client()
	if err != nil {
		return err
	}
	if err := client.SetBucketEncryption(ctx, bucket, cfg); err != nil {
		return fmt.Errorf("encrypt bucket %s with %s on MinIO at %s: %w", bucket, kind, m.Endpoint, err)
	}
	return nil
}

// admin sends PUT /minio/admin/v3/<call>?<query> with body, signed with the root credentials.
func (m *MinIO) admin(ctx context.Context, call string, query url.Values, body []byte) error {
	u := m.scheme() + "://" + m.Endpoint + "/minio/admin/v3/" + call + "?" + query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.ContentLength = int64(len(body))
	sum := sha256.Sum256(body)
	req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(sum[:]))
	req = signer.SignV4(*req, m.AccessKey, m.SecretKey, "", "")
	client := &http.Client{Timeout: 30 * time.Second}
	if m.certs != nil {
		tr, err := m.certs.httpTransport()
		if err != nil {
			return err
		}
		defer tr.CloseIdleConnections()
		client.Transport = tr
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("MinIO admin %s: %w", call, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("MinIO admin %s: %s: %s", call, resp.Status, msg)
	}
	return nil
}

// sealAdminBody encrypts data for MinIO's admin API (Argon2id key, AES-256-GCM sio stream).
func sealAdminBody(password string, data []byte) ([]byte, error) {
	const argon2idAESGCM = 0x00
	salt := make([]byte, 32)
	if _, err := rand.Read(salt); err != nil {
		return nil, err
	}
	key := argon2.IDKey([]byte(password), salt, 1, 64*1024, 4, 32)
	stream, err := sio.AES_256_GCM.Stream(key)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, stream.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(salt)
	out.WriteByte(argon2idAESGCM)
	out.Write(nonce)
	w := stream.EncryptWriter(&out, nonce, nil)
	if _, err := w.Write(data); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

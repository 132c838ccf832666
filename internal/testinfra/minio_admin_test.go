package testinfra

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// TestMinIOAdminAndKMS: a user made with AddUserWithPolicy has exactly its policy's rights, and a
// server started with KMS encrypts the objects of a bucket given default encryption.
func TestMinIOAdminAndKMS(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MinIO server; skipped with -short")
	}
	m, err := StartMinIOWith(MinIOOptions{KMS: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	ctx := context.Background()
	if err := m.MakeBucket(ctx, "kratix"); err != nil {
		t.Fatal(err)
	}
	key, secret, err := m.AddUserWithPolicy(ctx, `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["s3:PutObject"],"Resource":["arn:aws:s3:::kratix/team/*"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	user, err := minio.New(m.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(key, secret, ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	put := func(c *minio.Client, key string) error {
		_, err := c.PutObject(ctx, "kratix", key, bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{})
		return err
	}
	if err := put(user, "team/a.yaml"); err != nil {
		t.Errorf("the user may write under team/: %v", err)
	}
	if err := put(user, "other/a.yaml"); minio.ToErrorResponse(err).Code != "AccessDenied" {
		t.Errorf("a write outside team/ gave %v, want AccessDenied", err)
	}

	for _, kind := range []string{"SSE-S3", "SSE-KMS"} {
		bucket := fmt.Sprintf("enc-%s", map[string]string{"SSE-S3": "s3", "SSE-KMS": "kms"}[kind])
		if err := m.MakeBucket(ctx, bucket); err != nil {
			t.Fatal(err)
		}
		if err := m.EncryptBucket(ctx, bucket, kind); err != nil {
			t.Fatal(err)
		}
		root, err := m.Client()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := root.PutObject(ctx, bucket, "a.yaml", bytes.NewReader([]byte("x")), 1, minio.PutObjectOptions{}); err != nil {
			t.Fatal(err)
		}
		info, err := root.StatObject(ctx, bucket, "a.yaml", minio.StatObjectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"SSE-S3": "AES256", "SSE-KMS": "aws:kms"}[kind]
		if got := info.Metadata.Get("X-Amz-Server-Side-Encryption"); got != want {
			t.Errorf("%s: an object of the bucket has encryption %q, want %q", kind, got, want)
		}
	}
	if err := m.EncryptBucket(ctx, "kratix", "SSE-C"); err == nil {
		t.Error("EncryptBucket accepted an unknown kind")
	}
}

// TestMinIOReadyForAdminCalls: a server is ready for admin calls when StartMinIOWith returns. It
// answers its liveness check while IAM is still being initialised in the background, and an admin
// call made then fails with 503 XMinioServerNotInitialized (seen under load); the first call here
// comes at once, with no retry.
func TestMinIOReadyForAdminCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real MinIO servers; skipped with -short")
	}
	for _, opts := range []MinIOOptions{{}, {KMS: true}, {TLS: true}} {
		m, err := StartMinIOWith(opts)
		if err != nil {
			t.Fatal(err)
		}
		err = m.AddPolicy(context.Background(), "first-call",
			`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["s3:GetObject"],"Resource":["arn:aws:s3:::kratix/*"]}]}`)
		m.Stop()
		if err != nil {
			t.Errorf("the first admin call to a server started with %+v: %v", opts, err)
		}
	}
}

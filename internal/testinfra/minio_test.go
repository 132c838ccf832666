package testinfra

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// TestMinIO builds MinIO the first time it runs on a machine (minutes), hence the -short escape.
func TestMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MinIO server, built on first use; skipped with -short")
	}
	m, err := StartMinIO()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.MakeBucket(ctx, "kratix"); err != nil {
		t.Fatal(err)
	}
	client, err := m.Client()
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("kind: ConfigMap\n")
	if _, err := client.PutObject(ctx, "kratix", "dev/resources/cm.yaml", bytes.NewReader(content), int64(len(content)),
		minio.PutObjectOptions{ContentType: "application/yaml"}); err != nil {
		t.Fatal(err)
	}
	assertObject(ctx, t, client, "kratix", "dev/resources/cm.yaml", content)

	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	// A new client: the old one's connections died with the old process.
	client, err = m.Client()
	if err != nil {
		t.Fatal(err)
	}
	assertObject(ctx, t, client, "kratix", "dev/resources/cm.yaml", content)

	// The root credentials are really checked.
	intruder, err := minio.New(m.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey, "wrong-secret", ""), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := intruder.ListBuckets(ctx); err == nil {
		t.Fatal("ListBuckets with a wrong secret succeeded")
	}
}

func TestMinIODownAndStop(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MinIO server, built on first use; skipped with -short")
	}
	m, err := StartMinIO()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	live := "http://" + m.Endpoint + "/minio/health/live"

	m.Down()
	if resp, err := http.Get(live); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("MinIO still answering after Down: %s", resp.Status)
	}
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err == nil {
		t.Fatal("Up on a running server succeeded")
	}

	m.Stop()
	if _, err := os.Stat(m.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("data folder still there after Stop: %v", err)
	}
	if err := m.Up(); err == nil {
		t.Error("Up after Stop succeeded")
	}
}

func assertObject(ctx context.Context, t *testing.T, client *minio.Client, bucket, key string, want []byte) {
	t.Helper()
	obj, err := client.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = obj.Close() }()
	got, err := io.ReadAll(obj)
	if err != nil {
		t.Fatalf("read s3://%s/%s: %v", bucket, key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("s3://%s/%s = %q, want %q", bucket, key, got, want)
	}
}

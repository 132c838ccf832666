package testinfra

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// MinIO is a MinIO server running on loopback with a temporary data folder.
type MinIO struct {
	Endpoint  string // "127.0.0.1:PORT", no scheme; plain HTTP, or HTTPS from StartMinIOTLS
	AccessKey string // root user
	SecretKey string // root password

	// CACertificate is the PEM of the throwaway CA that signed the server's certificate (for
	// 127.0.0.1 and localhost) when it serves HTTPS (StartMinIOTLS); empty for plain HTTP.
	CACertificate string

	// KMSKeyName names the static KMS key the server holds when started with
	// MinIOOptions.KMS; empty otherwise.
	KMSKeyName string

	binary  string
	dir     string     // temporary folder: data/, certs/ and minio.log
	kmsKey  string     // MINIO_KMS_SECRET_KEY, "<name>:<base64 of 32 bytes>"; empty without KMS
	autoEnc bool       // MINIO_KMS_AUTO_ENCRYPTION=on
	console string     // console address, fixed so that Up rebinds the same ports
	certs   *serverTLS // nil for plain HTTP

	mu      sync.Mutex
	proc    *minioProcess // nil while down
	stopped bool          // Stop has removed the data folder; Up would start from nothing
}

// minioProcess is one run of the server.
type minioProcess struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

const (
	// minioStartTimeout bounds the wait for a server to be ready. Idle, MinIO is ready in about a
	// second; with the machine's cores busy with other builds (load 20 on two cores) it has taken
	// tens of seconds.
	minioStartTimeout = 3 * time.Minute
	minioStopGrace    = 5 * time.Second
	minioRootUser     = "kratix-root"
)

// errExitedEarly marks a server that exited before becoming healthy; StartMinIO then retries on
// other ports, because the usual cause is a port taken between choosing and binding it.
var errExitedEarly = errors.New("minio exited before it was ready")

// StartMinIO starts a MinIO server (see MinIOBinary) serving plain HTTP on free loopback ports
// with an empty temporary data folder and waits until it is ready for S3 and admin calls (see
// waitReady). Call Stop
// when done.
func StartMinIO() (*MinIO, error) { return StartMinIOWith(MinIOOptions{}) }

// StartMinIOTLS is StartMinIO serving HTTPS instead, on the same Endpoint, with a certificate
// signed by a CA generated for this server alone (CACertificate). Client and MakeBucket trust
// that CA and nothing else.
func StartMinIOTLS() (*MinIO, error) { return StartMinIOWith(MinIOOptions{TLS: true}) }

// MinIOOptions choose how StartMinIOWith starts the server.
type MinIOOptions struct {
	// TLS serves HTTPS, as StartMinIOTLS does.
	TLS bool
	// KMS gives the server a static KMS key (MINIO_KMS_SECRET_KEY, a random 32-byte key named
	// KMSKeyName), so that buckets can have default encryption (SSE-S3 or SSE-KMS, see
	// EncryptBucket) and objects can be written with SSE headers.
	KMS bool
	// AutoEncrypt encrypts every object written with SSE-S3 (MINIO_KMS_AUTO_ENCRYPTION=on);
	// it implies KMS.
	AutoEncrypt bool
}

// StartMinIOWith is StartMinIO with options.
func StartMinIOWith(opts MinIOOptions) (*MinIO, error) {
	what := "start MinIO"
	if opts.TLS {
		what = "start MinIO with TLS"
	}
	if opts.KMS || opts.AutoEncrypt {
		what += " and KMS"
	}
	withTLS := opts.TLS
	binary, err := MinIOBinary()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	dir, err := os.MkdirTemp("", "kratix-minio-")
	if err != nil {
		return nil, fmt.Errorf("%s: create temporary folder: %w", what, err)
	}
	m := &MinIO{AccessKey: minioRootUser, SecretKey: randomHex(16), binary: binary, dir: dir}
	if opts.KMS || opts.AutoEncrypt {
		m.KMSKeyName = "kratix-test-key"
		key := make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand.Read never fails on supported platforms
		m.kmsKey = m.KMSKeyName + ":" + base64.StdEncoding.EncodeToString(key)
		m.autoEnc = opts.AutoEncrypt
	}
	if withTLS {
		if err := m.installCertificate(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	for attempt := 0; attempt < 3; attempt++ {
		var addrs []string
		if addrs, err = freeLoopbackAddrs(2); err != nil {
			break
		}
		m.Endpoint, m.console = addrs[0], addrs[1]
		if err = m.Up(); !errors.Is(err, errExitedEarly) {
			break
		}
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return m, nil
}

// installCertificate generates the CA and the server certificate and puts the certificate where
// MinIO looks for one at start: public.crt and private.key in its --certs-dir. Finding them
// there, MinIO serves HTTPS on --address.
func (m *MinIO) installCertificate() error {
	certs, err := newServerTLS()
	if err != nil {
		return fmt.Errorf("generate TLS certificates: %w", err)
	}
	certsDir := m.certsDir()
	if err := os.MkdirAll(certsDir, 0o700); err != nil {
		return fmt.Errorf("create MinIO certs folder: %w", err)
	}
	if err := os.WriteFile(filepath.Join(certsDir, "public.crt"), certs.certPEM, 0o644); err != nil {
		return fmt.Errorf("write MinIO certificate: %w", err)
	}
	if err := os.WriteFile(filepath.Join(certsDir, "private.key"), certs.keyPEM, 0o600); err != nil {
		return fmt.Errorf("write MinIO private key: %w", err)
	}
	m.certs = certs
	m.CACertificate = string(certs.caPEM)
	return nil
}

// Up starts the server process again after Down, on the same ports and data folder, and waits
// until it is ready (see waitReady). Fault tests use Down and Up to take the store away and bring it back.
func (m *MinIO) Up() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return fmt.Errorf("MinIO at %s has been stopped and its data removed", m.Endpoint)
	}
	if m.proc != nil {
		return fmt.Errorf("MinIO at %s is already running", m.Endpoint)
	}
	proc, err := m.launch()
	if err != nil {
		return err
	}
	if err := m.waitReady(proc); err != nil {
		proc.stop()
		return fmt.Errorf("%w\nminio.log:\n%s", err, m.logTail())
	}
	m.proc = proc
	return nil
}

// Down stops the server process (SIGTERM, then SIGKILL after a grace period) and keeps the data
// folder, so that Up brings back the same objects.
func (m *MinIO) Down() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil {
		m.proc.stop()
		m.proc = nil
	}
}

// Restart is Down then Up: same ports, same data.
func (m *MinIO) Restart() error {
	m.Down()
	if err := m.Up(); err != nil {
		return fmt.Errorf("restart MinIO: %w", err)
	}
	return nil
}

// Stop ends the server process and removes its data folder. It is safe to call more than once.
func (m *MinIO) Stop() {
	m.Down()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped = true
	_ = os.RemoveAll(m.dir)
}

// Client returns a minio-go client with the root credentials, for tests to read back what the
// provider wrote through a client of their own.
func (m *MinIO) Client() (*minio.Client, error) {
	opts := &minio.Options{
		Creds:  credentials.NewStaticV4(m.AccessKey, m.SecretKey, ""),
		Secure: m.certs != nil,
		// MinIO's default region; naming it spares a GetBucketLocation round trip per bucket.
		Region: "us-east-1",
	}
	if m.certs != nil {
		tr, err := m.certs.httpTransport()
		if err != nil {
			return nil, fmt.Errorf("MinIO client for %s: %w", m.Endpoint, err)
		}
		opts.Transport = tr
	}
	client, err := minio.New(m.Endpoint, opts)
	if err != nil {
		return nil, fmt.Errorf("MinIO client for %s: %w", m.Endpoint, err)
	}
	return client, nil
}

// MakeBucket creates bucket name.
func (m *MinIO) MakeBucket(ctx context.Context, name string) error {
	client, err := m.Client()
	if err != nil {
		return err
	}
	if err := client.MakeBucket(ctx, name, minio.MakeBucketOptions{}); err != nil {
		return fmt.Errorf("make bucket %q on MinIO at %s: %w", name, m.Endpoint, err)
	}
	return nil
}

// launch starts the server process, logging to minio.log in the temporary folder.
func (m *MinIO) launch() (*minioProcess, error) {
	logFile, err := os.OpenFile(m.logPath(), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open MinIO log: %w", err)
	}
	cmd := exec.Command(m.binary, "server", filepath.Join(m.dir, "data"),
		"--address", m.Endpoint,
		"--console-address", m.console,
		// Its own certs folder: otherwise MinIO creates ~/.minio and would pick up any TLS
		// certificate there and switch to HTTPS. StartMinIOTLS puts its certificate here.
		"--certs-dir", m.certsDir(),
	)
	cmd.Env = append(withoutMinIOEnv(os.Environ()),
		"MINIO_ROOT_USER="+m.AccessKey,
		"MINIO_ROOT_PASSWORD="+m.SecretKey,
		"MINIO_UPDATE=off",
	)
	if m.kmsKey != "" {
		cmd.Env = append(cmd.Env, "MINIO_KMS_SECRET_KEY="+m.kmsKey)
	}
	if m.autoEnc {
		cmd.Env = append(cmd.Env, "MINIO_KMS_AUTO_ENCRYPTION=on")
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", m.binary, err)
	}
	proc := &minioProcess{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = logFile.Close()
		close(proc.done)
	}()
	return proc, nil
}

// waitReady polls /minio/health/cluster until it answers 200, the process exits, or the start
// timeout passes. The liveness check (/minio/health/live) answers 200 as soon as the server
// listens, while its object layer, bucket metadata and IAM are still being initialised in the
// background: on a loaded machine an admin call made then fails with 503
// XMinioServerNotInitialized. The cluster check answers 200 only once all three are up (MinIO's
// checkHealth in cmd/healthcheck-handler.go), and says which is missing in x-minio-server-status.
func (m *MinIO) waitReady(proc *minioProcess) error {
	url := m.scheme() + "://" + m.Endpoint + "/minio/health/cluster"
	client := &http.Client{Timeout: 5 * time.Second}
	if m.certs != nil {
		tr, err := m.certs.httpTransport()
		if err != nil {
			return fmt.Errorf("MinIO on %s: %w", m.Endpoint, err)
		}
		defer tr.CloseIdleConnections()
		client.Transport = tr
	}
	deadline := time.After(minioStartTimeout)
	var last string // the last answer, for the error
	for {
		resp, err := client.Get(url)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
			if status := resp.Header.Get("X-Minio-Server-Status"); status != "" {
				last += " (x-minio-server-status: " + status + ")"
			}
		} else {
			last = err.Error()
		}
		select {
		case <-proc.done:
			return fmt.Errorf("MinIO on %s: %w (%v)", m.Endpoint, errExitedEarly, proc.cmd.ProcessState)
		case <-deadline:
			return fmt.Errorf("MinIO on %s was not ready within %s: %s did not answer 200 (its object layer, "+
				"bucket metadata or IAM were not initialised); last answer: %s", m.Endpoint, minioStartTimeout, url, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// stop asks the process to exit, kills it if it has not after the grace period, and waits.
func (p *minioProcess) stop() {
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		select {
		case <-p.done:
			return
		case <-time.After(minioStopGrace):
		}
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// scheme is "https" for a server started by StartMinIOTLS, "http" otherwise.
func (m *MinIO) scheme() string {
	if m.certs != nil {
		return "https"
	}
	return "http"
}

func (m *MinIO) certsDir() string { return filepath.Join(m.dir, "certs") }

func (m *MinIO) logPath() string { return filepath.Join(m.dir, "minio.log") }

func (m *MinIO) logTail() string {
	b, err := os.ReadFile(m.logPath())
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", m.logPath(), err)
	}
	return tail(b, 4096)
}

// withoutMinIOEnv drops MINIO_* variables from env: settings meant for some other MinIO (a
// MINIO_VOLUMES, say) must not leak into the test server.
func withoutMinIOEnv(env []string) []string {
	var kept []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MINIO_") {
			kept = append(kept, kv)
		}
	}
	return kept
}

// freeLoopbackAddrs returns n distinct free "127.0.0.1:PORT" addresses. The listeners are held
// until all n are chosen, so the kernel cannot hand out the same port twice; another process
// may still take one before MinIO binds it, which StartMinIO handles by retrying.
func freeLoopbackAddrs(n int) ([]string, error) {
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free loopback port: %w", err)
		}
		defer func() { _ = l.Close() }()
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

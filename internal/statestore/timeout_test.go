package statestore

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/promise-platform/terraform-provider-kratix/internal/testinfra"
)

// opDeadline is the limit of each operation against a silent server; opSlack is how much longer
// an operation may take to give up. Without its deadline an operation would wait for the silent
// server forever; the slack is wide so that a loaded machine (other builds on both cores) does
// not fail the test, while a deadline that is not respected still does.
const (
	opDeadline = 2 * time.Second
	opSlack    = 58 * time.Second
)

// expectTimeout runs op with a context of opDeadline and checks that it gives up soon after,
// with KindTimeout.
func expectTimeout(t *testing.T, name string, op func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), opDeadline)
	defer cancel()
	start := time.Now()
	err := op(ctx)
	took := time.Since(start)
	t.Logf("%s gave up after %s: %v", name, took.Round(time.Millisecond), err)
	if kindOf(err) != KindTimeout {
		t.Errorf("%s against a silent server = %v, want kind %q", name, err, KindTimeout)
	}
	if took > opDeadline+opSlack {
		t.Errorf("%s took %s; its deadline was %s", name, took.Round(time.Millisecond), opDeadline)
	}
	var se *Error
	if errors.As(err, &se) && !strings.Contains(se.Advice(), "timeouts block") {
		t.Errorf("%s: the advice for %v does not point at the timeouts block: %s", name, err, se.Advice())
	}
}

// runStoreOps checks that every operation of s times out against a silent server.
func runStoreOps(t *testing.T, s Store) {
	t.Helper()
	expectTimeout(t, "Check", s.Check)
	expectTimeout(t, "Apply", func(ctx context.Context) error {
		_, err := s.Apply(ctx, Change{Message: "Update from: x", Put: map[string][]byte{"x.yaml": []byte("x")}})
		return err
	})
	expectTimeout(t, "Read", func(ctx context.Context) error {
		_, err := s.Read(ctx, "x.yaml")
		return err
	})
	expectTimeout(t, "List", func(ctx context.Context) error {
		_, err := s.List(ctx, "")
		return err
	})
}

// TestTimeoutSilentServer: an operation against a server that accepts connections and never
// answers ends with its context's deadline, as KindTimeout, for buckets and Git over HTTP and
// SSH. Over SSH the silent server never sends its version line, so the operation hangs in the
// SSH handshake, which go-git starts without the operation's context.
func TestTimeoutSilentServer(t *testing.T) {
	addr := testinfra.SilentServer(t)
	t.Run("bucket", func(t *testing.T) {
		s, err := NewPool().Bucket(rootConfig(addr, "silent", "silent", "silent-secret"))
		if err != nil {
			t.Fatal(err)
		}
		runStoreOps(t, s)
	})
	t.Run("git-http", func(t *testing.T) {
		s, err := NewPool().Git(GitConfig{URL: "http://" + addr + "/silent.git", Username: "u", Password: "silent-password"})
		if err != nil {
			t.Fatal(err)
		}
		runStoreOps(t, s)
	})
	t.Run("git-ssh", func(t *testing.T) {
		s, err := NewPool().Git(GitConfig{
			URL: "ssh://git@" + addr + "/silent.git", SSHPrivateKey: otherSSHKey(t), KnownHosts: someKnownHosts(t, addr),
		})
		if err != nil {
			t.Fatal(err)
		}
		runStoreOps(t, s)
	})
	t.Run("git-ssh-stalled-session", func(t *testing.T) {
		// The handshake and the authentication go through; the git command then never answers.
		// go-git's reads watch the context here; the connection's deadline bounds them too.
		addr, knownHosts := stalledSSHServer(t)
		s, err := NewPool().Git(GitConfig{
			URL: "ssh://git@" + addr + "/silent.git", SSHPrivateKey: otherSSHKey(t), KnownHosts: knownHosts,
		})
		if err != nil {
			t.Fatal(err)
		}
		runStoreOps(t, s)
	})
}

// TestTimeoutOnlyWhenTheDeadlinePassed: a failure within the deadline keeps its own kind; a
// refused connection is a network failure.
func TestTimeoutOnlyWhenTheDeadlinePassed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	_ = l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := NewPool().Git(GitConfig{URL: "http://" + closed + "/r.git"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, Change{Put: map[string][]byte{"a": nil}}); kindOf(err) != KindNetwork {
		t.Errorf("Apply to a closed port = %v, want kind %q", err, KindNetwork)
	}
}

func TestOutOfTimeKeepsTheServersAnswers(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	cause := fmt.Errorf("read tcp: %w", context.DeadlineExceeded)
	tests := []struct {
		name string
		ctx  context.Context
		kind Kind
		want Kind
	}{
		{"network after the deadline", expired, KindNetwork, KindTimeout},
		{"other after the deadline", expired, KindOther, KindTimeout},
		{"auth after the deadline", expired, KindAuth, KindAuth},
		{"not found after the deadline", expired, KindNotFound, KindNotFound},
		{"network, deadline not reached", context.Background(), KindNetwork, KindNetwork},
		{"network, cancelled", cancelled, KindNetwork, KindNetwork},
		{"network, deadline passed but not yet signalled", lateContext{context.Background(), time.Now().Add(-time.Millisecond)}, KindNetwork, KindTimeout},
	}
	for _, tt := range tests {
		err := outOfTime(tt.ctx, &Error{Store: "s", Op: "write", Kind: tt.kind, Err: cause})
		if got := kindOf(err); got != tt.want {
			t.Errorf("%s: kind %q, want %q", tt.name, got, tt.want)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: the cause is lost: %v", tt.name, err)
		}
	}
	if outOfTime(expired, nil) != nil {
		t.Error("outOfTime(nil) is not nil")
	}
}

// someKnownHosts is a known_hosts line for addr with a key of its own: the silent server never
// shows one, but an SSH store needs known_hosts to try.
func someKnownHosts(t *testing.T, addr string) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, key)
}

// stalledSSHServer is an SSH server that accepts any key and any command, then never answers;
// it returns its address and a known_hosts line for it.
func stalledSSHServer(t *testing.T) (addr, knownHosts string) {
	t.Helper()
	_, hostKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(hostKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(ssh.ConnMetadata, ssh.PublicKey) (*ssh.Permissions, error) { return nil, nil },
	}
	cfg.AddHostKey(signer)
	addr = testinfra.ServeLoopback(t, func(c net.Conn) {
		_, chans, reqs, err := ssh.NewServerConn(c, cfg)
		if err != nil {
			return
		}
		go ssh.DiscardRequests(reqs)
		for nc := range chans {
			ch, chReqs, err := nc.Accept()
			if err != nil {
				continue
			}
			go func() {
				for r := range chReqs {
					_ = r.Reply(true, nil) // exec accepted; nothing is ever written
				}
			}()
			go func() { _, _ = io.Copy(io.Discard, ch) }()
		}
	})
	return addr, knownhosts.Line([]string{knownhosts.Normalize(addr)}, signer.PublicKey())
}

// lateContext has a deadline that has passed, and does not say so yet.
type lateContext struct {
	context.Context
	deadline time.Time
}

func (c lateContext) Deadline() (time.Time, bool) { return c.deadline, true }

// TestGitOverSSHWithinADeadline: SSH operations with a deadline they meet work as without one,
// one after the other on the same clone, and leave no operation registered behind them.
func TestGitOverSSHWithinADeadline(t *testing.T) {
	srv := testGitServer(t)
	repo := newServerRepo(t, srv)
	s, err := NewPool().Git(GitConfig{URL: srv.SSHURL(repo), SSHPrivateKey: srv.SSHPrivateKey, KnownHosts: srv.KnownHosts})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := s.Check(ctx); err != nil {
			t.Fatalf("Check: %v", err)
		}
		name := fmt.Sprintf("f%d.yaml", i)
		if _, err := s.Apply(ctx, Change{Message: "Update from: deadline", Put: map[string][]byte{name: []byte(name)}}); err != nil {
			t.Fatalf("Apply: %v", err)
		}
		cancel()
	}
	files, err := srv.ListFiles(repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"README.md", "f0.yaml", "f1.yaml", "f2.yaml"}; !sameSet(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
	sshOps.Lock()
	defer sshOps.Unlock()
	if len(sshOps.ctx) != 0 {
		t.Errorf("%d SSH operations still registered after they ended", len(sshOps.ctx))
	}
}

package testinfra

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// sshUser is the only user name the SSH server accepts, as in git@github.com.
const sshUser = "git"

// sshServer is a minimal SSH server for git: public-key auth with one authorised key, and
// "exec" of git-upload-pack or git-receive-pack on a repository under root. Everything else
// (shells, ptys, subsystems, port forwarding) is refused.
type sshServer struct {
	root     string
	execPath string
	config   *ssh.ServerConfig
	listener net.Listener

	// ctx is cancelled on close, which kills the git processes still running.
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

func startSSHServer(root, execPath string, hostKey ssh.Signer, authorised ssh.PublicKey) (*sshServer, error) {
	want := authorised.Marshal()
	config := &ssh.ServerConfig{
		// No PasswordCallback or KeyboardInteractiveCallback: the server offers only publickey.
		PublicKeyCallback: func(meta ssh.ConnMetadata, key ssh.PublicKey) (*ssh.Permissions, error) {
			if meta.User() != sshUser {
				return nil, fmt.Errorf("user %q not allowed, only %q", meta.User(), sshUser)
			}
			if !bytes.Equal(key.Marshal(), want) {
				return nil, errors.New("public key not authorised")
			}
			return &ssh.Permissions{}, nil
		},
	}
	config.AddHostKey(hostKey)

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for SSH: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &sshServer{
		root: root, execPath: execPath, config: config, listener: listener,
		ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{},
	}
	s.wg.Add(1)
	go s.acceptLoop()
	return s, nil
}

func (s *sshServer) addr() string { return s.listener.Addr().String() }

// close stops accepting, drops every connection, kills running git processes and waits for all
// of the server's goroutines.
func (s *sshServer) close() {
	s.cancel()
	_ = s.listener.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *sshServer) acceptLoop() {
	defer s.wg.Done()
	for {
		conn, err := s.listener.Accept()
		if err != nil {
			return // listener closed
		}
		if !s.track(conn) {
			_ = conn.Close()
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.untrack(conn)
			s.serveConn(conn)
		}()
	}
}

// track registers conn so that close can drop it; it refuses once the server is closing.
func (s *sshServer) track(conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return false
	}
	s.conns[conn] = struct{}{}
	return true
}

func (s *sshServer) untrack(conn net.Conn) {
	s.mu.Lock()
	delete(s.conns, conn)
	s.mu.Unlock()
	_ = conn.Close()
}

func (s *sshServer) serveConn(conn net.Conn) {
	// A client that connects and says nothing must not pin a goroutine forever.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	_, channels, requests, err := ssh.NewServerConn(conn, s.config)
	if err != nil {
		return // handshake or authentication failed; the client has been told
	}
	_ = conn.SetDeadline(time.Time{})

	go ssh.DiscardRequests(requests) // global requests (keepalives, forwarding): refused
	var sessions sync.WaitGroup
	for newChannel := range channels {
		if newChannel.ChannelType() != "session" {
			_ = newChannel.Reject(ssh.UnknownChannelType, "only session channels are supported")
			continue
		}
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			s.serveSession(newChannel)
		}()
	}
	sessions.Wait()
}

// serveSession waits for the session's "exec" request, runs the git command and reports its
// exit status. "env" requests are accepted; GIT_PROTOCOL is passed on, so that clients asking
// for protocol v2 get it.
func (s *sshServer) serveSession(newChannel ssh.NewChannel) {
	channel, requests, err := newChannel.Accept()
	if err != nil {
		return
	}
	defer func() { _ = channel.Close() }()

	var env []string
	for req := range requests {
		switch req.Type {
		case "env":
			var kv struct{ Name, Value string }
			if ssh.Unmarshal(req.Payload, &kv) == nil && kv.Name == "GIT_PROTOCOL" {
				env = append(env, "GIT_PROTOCOL="+kv.Value)
			}
			_ = req.Reply(true, nil)
		case "exec":
			var payload struct{ Command string }
			if err := ssh.Unmarshal(req.Payload, &payload); err != nil {
				_ = req.Reply(false, nil)
				return
			}
			service, repo, err := parseGitCommand(payload.Command)
			if err != nil {
				_, _ = fmt.Fprintf(channel.Stderr(), "testinfra ssh: %v\n", err)
				_ = req.Reply(false, nil)
				return
			}
			_ = req.Reply(true, nil)
			go ssh.DiscardRequests(requests) // e.g. window-change while git runs
			s.runService(channel, service, filepath.Join(s.root, repo), env)
			return
		default:
			_ = req.Reply(false, nil) // shell, pty-req, subsystem, x11-req, ...
		}
	}
}

// runService runs service on repo with its standard streams wired to channel, then sends EOF and
// the exit status, as OpenSSH does.
func (s *sshServer) runService(channel ssh.Channel, service, repo string, env []string) {
	cmd := exec.CommandContext(s.ctx, filepath.Join(s.execPath, service), repo)
	cmd.Env = append(gitEnv(), env...)
	cmd.Stdout = channel
	cmd.Stderr = channel.Stderr()
	// An explicit pipe rather than cmd.Stdin = channel: with a plain reader, Wait would also wait
	// for the client to close its side, and git clients wait for the exit status first.
	stdin, err := cmd.StdinPipe()
	status := uint32(0)
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		_, _ = fmt.Fprintf(channel.Stderr(), "testinfra ssh: start %s: %v\n", service, err)
		status = 127
	} else {
		go func() {
			_, _ = io.Copy(stdin, channel)
			_ = stdin.Close()
		}()
		status = exitStatus(cmd.Wait())
	}
	_ = channel.CloseWrite()
	_, _ = channel.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
}

// exitStatus maps Wait's result to the number sent in the "exit-status" request.
func exitStatus(err error) uint32 {
	if err == nil {
		return 0
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() >= 0 {
		return uint32(exitErr.ExitCode())
	}
	return 255 // killed by a signal, or Wait failed
}

// parseGitCommand accepts `git-upload-pack '/name.git'` and `git-receive-pack '/name.git'`, with
// or without the quotes and the leading slash, and returns the program and the repository path
// relative to the server root. Anything else, and any path leaving the root, is an error.
func parseGitCommand(command string) (service, repo string, err error) {
	service, arg, ok := strings.Cut(strings.TrimSpace(command), " ")
	if !ok || (service != "git-upload-pack" && service != "git-receive-pack") {
		return "", "", fmt.Errorf("command %q not allowed: only git-upload-pack and git-receive-pack", command)
	}
	arg = strings.TrimSpace(arg)
	if len(arg) >= 2 && arg[0] == '\'' && arg[len(arg)-1] == '\'' {
		arg = arg[1 : len(arg)-1]
	}
	repo = strings.TrimPrefix(arg, "/")
	// Quotes left inside mean shell quoting we do not interpret; refuse rather than guess.
	if strings.ContainsAny(repo, `'"\`) || !filepath.IsLocal(repo) {
		return "", "", fmt.Errorf("repository path %q not allowed: must be a relative path inside the server root", arg)
	}
	return service, repo, nil
}

package statestore

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"golang.org/x/net/proxy"
)

// go-git's SSH transport connects without the operation's context: it dials with a context of
// its own (bounded by ssh.ClientConfig.Timeout) and then runs the SSH handshake with no deadline
// at all, so a server that accepts the connection and never answers would hold the operation
// forever. Its one hook into the connection is the proxy dialer, looked up by the proxy URL's
// scheme in golang.org/x/net/proxy's registry. Every SSH operation therefore names a proxy of
// the scheme below, whose host is the operation's number; its dialer connects as go-git would
// without a proxy and ties the connection to the operation's context, so that the context's end
// (deadline or cancellation) cuts the dial, the handshake and every read and write after.

// sshOpScheme is the scheme of the proxy URLs that stand for an operation.
const sshOpScheme = "kratix-ssh-op"

// sshOps holds the context of every SSH operation under way, by number.
var sshOps = struct {
	sync.Mutex
	next uint64
	ctx  map[string]context.Context
}{ctx: map[string]context.Context{}}

func init() {
	proxy.RegisterDialerType(sshOpScheme, func(u *url.URL, _ proxy.Dialer) (proxy.Dialer, error) {
		return sshOpDialer{id: u.Host}, nil
	})
}

// sshOperation returns the proxy options that bind the SSH connections opened with them to ctx,
// and the function that ends the binding once the operation is over. Other transports get empty
// options: their clients take the context themselves.
func sshOperation(ctx context.Context, rawURL string) (transport.ProxyOptions, func()) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil || ep.Protocol != "ssh" {
		return transport.ProxyOptions{}, func() {}
	}
	sshOps.Lock()
	sshOps.next++
	id := strconv.FormatUint(sshOps.next, 10)
	sshOps.ctx[id] = ctx
	sshOps.Unlock()
	return transport.ProxyOptions{URL: sshOpScheme + "://" + id}, func() {
		sshOps.Lock()
		delete(sshOps.ctx, id)
		sshOps.Unlock()
	}
}

// sshOpDialer connects for one operation.
type sshOpDialer struct{ id string }

func (d sshOpDialer) Dial(network, addr string) (net.Conn, error) {
	return d.DialContext(context.Background(), network, addr)
}

// DialContext connects as go-git does when no proxy is set (through the proxy that ALL_PROXY
// names, if any), within both ctx (go-git's dial timeout) and the operation's context, and
// returns a connection that stops reading and writing when the operation's context ends.
func (d sshOpDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	sshOps.Lock()
	op, ok := sshOps.ctx[d.id]
	sshOps.Unlock()
	if !ok {
		return nil, fmt.Errorf("connecting to %s: the operation is over", addr)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopDial := context.AfterFunc(op, cancel)
	defer stopDial()
	conn, err := proxy.Dial(ctx, network, addr)
	if err != nil {
		if op.Err() != nil {
			return nil, fmt.Errorf("connecting to %s: %w", addr, op.Err())
		}
		return nil, err
	}
	if deadline, ok := op.Deadline(); ok {
		if err := conn.SetDeadline(deadline); err != nil {
			_ = conn.Close()
			return nil, err
		}
	}
	// A cancellation has no deadline to set in advance: it cuts the connection when it comes.
	stop := context.AfterFunc(op, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	return &sshOpConn{Conn: conn, stop: stop}, nil
}

// sshOpConn is a connection bound to an operation's context until it is closed.
type sshOpConn struct {
	net.Conn
	stop func() bool
}

func (c *sshOpConn) Close() error {
	c.stop()
	return c.Conn.Close()
}

package testinfra

import (
	"io"
	"net"
	"sync"
	"testing"
)

// ServeLoopback listens on the loopback and hands every connection to handle in its own
// goroutine; the listener and every connection are closed when the test ends. It returns the
// address.
func ServeLoopback(t testing.TB, handle func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go handle(c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return l.Addr().String()
}

// SilentServer accepts every connection on the loopback and never writes a byte: a server that
// hangs, or a firewall that lets the handshake through and drops the rest.
func SilentServer(t testing.TB) string {
	t.Helper()
	return ServeLoopback(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) })
}

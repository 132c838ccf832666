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

// HTTP09Server answers every connection the way Python's http.server (and other servers that
// speak HTTP/1.0 and 0.9) answers a TLS ClientHello: the first line is not a request it can read,
// so it replies with an error page and no status line, as HTTP/0.9 does, and closes. An https://
// URL pointed at such a server sees a first record that is HTML, not "HTTP/".
func HTTP09Server(t testing.TB) string {
	t.Helper()
	return ServeLoopback(t, func(c net.Conn) {
		buf := make([]byte, 512)
		_, _ = c.Read(buf)
		_, _ = io.WriteString(c, "<!DOCTYPE HTML>\n<html lang=\"en\">\n<head><title>Error response</title></head>\n"+
			"<body><h1>Error response</h1><p>Error code: 400</p><p>Message: Bad request syntax.</p></body>\n</html>\n")
		_ = c.Close()
	})
}

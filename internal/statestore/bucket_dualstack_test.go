package statestore

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// An Amazon endpoint is reached at the name the user gave unless use_dual_stack asks for the
// dual-stack one: minio-go rewrites s3.<region>.amazonaws.com to s3.dualstack.<region>... by
// default, which an IPv4-only VPC cannot reach (Kratix's useDualStack, default false, is there
// for the same reason). The host each request goes to is read at the transport's proxy hook,
// before anything is dialled; the proxy it names refuses at once, so nothing leaves the machine.
func TestBucketDualStackOnlyWhenAsked(t *testing.T) {
	def, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		t.Fatal("http.DefaultTransport is not an *http.Transport")
	}
	var mu sync.Mutex
	var hosts []string
	recording := def.Clone()
	recording.Proxy = func(r *http.Request) (*url.URL, error) {
		mu.Lock()
		hosts = append(hosts, r.URL.Host)
		mu.Unlock()
		return nil, errors.New("recorded, not sent")
	}
	http.DefaultTransport = recording // newBucketStore clones it, the proxy hook with it
	t.Cleanup(func() { http.DefaultTransport = def })

	for _, c := range []struct {
		name string
		dual bool
		want string
	}{
		{"default", false, "kratix-state.s3.eu-west-2.amazonaws.com"},
		{"use_dual_stack", true, "kratix-state.s3.dualstack.eu-west-2.amazonaws.com"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			hosts = nil
			mu.Unlock()
			b, err := newBucketStore(BucketConfig{
				Endpoint: "s3.eu-west-2.amazonaws.com", BucketName: "kratix-state", Region: "eu-west-2",
				AuthMethod: "accessKey", AccessKeyID: "AKIAEXAMPLE", SecretAccessKey: "example-secret",
				UseDualStack: c.dual,
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Read(context.Background(), "x.yaml"); err == nil {
				t.Fatal("the read succeeded; the recording proxy should have refused it")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(hosts) == 0 {
				t.Fatal("no request reached the transport")
			}
			for _, h := range hosts {
				if h != c.want {
					t.Errorf("a request went to %q, want %q", h, c.want)
				}
			}
		})
	}
}

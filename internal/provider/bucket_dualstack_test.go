package provider

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// connectRecorder is an HTTPS proxy that writes down the host of every CONNECT it is asked for
// and refuses it, so a provider pointed at Amazon's endpoints reaches nothing outside the
// machine while the test learns which name each request was for.
type connectRecorder struct {
	mu    sync.Mutex
	hosts []string
}

func (r *connectRecorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.hosts = append(r.hosts, req.Host)
	r.mu.Unlock()
	http.Error(w, "recorded, not forwarded", http.StatusForbidden)
}

func (r *connectRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.hosts...)
}

// TestAccBucketDualStack: a bucket store at an Amazon endpoint is reached at the name the user
// wrote unless use_dual_stack = true, as Kratix's useDualStack (default false). minio-go turns
// dual-stack on for every Amazon endpoint by itself; before use_dual_stack the provider sent
// s3.eu-west-2.amazonaws.com's requests to s3.dualstack.eu-west-2.amazonaws.com, which an
// IPv4-only VPC cannot reach. The real CLI runs the provider binary with HTTPS_PROXY at a local
// recorder: the plan fails (the recorder refuses), and the hosts it was asked for are the check.
func TestAccBucketDualStack(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	rec := &connectRecorder{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 0}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	for _, c := range []struct {
		name, setting, want string
	}{
		{"unset", "", "kratix-dualstack.s3.eu-west-2.amazonaws.com:443"},
		{"false", "use_dual_stack = false", "kratix-dualstack.s3.eu-west-2.amazonaws.com:443"},
		{"true", "use_dual_stack = true", "kratix-dualstack.s3.dualstack.eu-west-2.amazonaws.com:443"},
	} {
		t.Run(c.name, func(t *testing.T) {
			config := cliRequiredProviders + `
resource "kratix_state_store" "s" {
  name = "aws"
  bucket = {
    endpoint    = "s3.eu-west-2.amazonaws.com"
    bucket_name = "kratix-dualstack"
    region      = "eu-west-2"
    auth_method = "IAM"
    ` + c.setting + `
  }
}

resource "kratix_destination" "d" {
  name        = "worker-1"
  path        = "worker-1"
  state_store = kratix_state_store.s
}

resource "kratix_promise" "p" {
  name         = "app"
  destinations = [kratix_destination.d]
  dependencies = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: app\n"
}
`
			before := len(rec.seen())
			cl := newCLI(t, map[string]string{"main.tf": config},
				"HTTPS_PROXY=http://"+ln.Addr().String(), "https_proxy=http://"+ln.Addr().String(),
				"NO_PROXY=", "no_proxy=", "CHECKPOINT_DISABLE=1",
				"AWS_ACCESS_KEY_ID=AKIAEXAMPLEDUALSTACK", "AWS_SECRET_ACCESS_KEY=example-secret-not-used",
				"AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null", "AWS_EC2_METADATA_DISABLED=true")
			out, _ := cl.run("apply", "-auto-approve")
			var amazon []string
			for _, h := range rec.seen()[before:] {
				if strings.HasSuffix(strings.Split(h, ":")[0], ".amazonaws.com") {
					amazon = append(amazon, h)
				}
			}
			if len(amazon) == 0 {
				t.Fatalf("no request for an amazonaws.com host reached the proxy; the apply printed:\n%s", out)
			}
			for _, h := range amazon {
				if h != c.want {
					t.Errorf("a request went to %s, want %s", h, c.want)
				}
			}
		})
	}
}

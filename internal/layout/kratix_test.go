package layout_test

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Kratix keeps at most 56 characters of a Work's identifier, then drops any trailing character
// that is not a letter or a digit, before adding "-" and five random characters.
func TestKratixWorkPrefix(t *testing.T) {
	tests := []struct{ identifier, want string }{
		{"p-alpha-default-instance-configure", "p-alpha-default-instance-configure"},
		// 80 characters: cut after "...-de".
		{"postgres-a-very-long-request-name-for-the-orders-team-default-instance-configure",
			"postgres-a-very-long-request-name-for-the-orders-team-de"},
		// The cut ends in "-": dropped.
		{"postgres-orders-of-the-payments-team-in-production-euw1-x-default-instance-configure",
			"postgres-orders-of-the-payments-team-in-production-euw1"},
		// The cut ends in "-c.": only the "." goes.
		{"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-c.d-default-instance-configure",
			"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-c"},
		// The cut ends in "--": both go.
		{"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa--b-default-instance-configure",
			"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		// Exactly 56 characters: kept whole.
		{"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		// Short, but ending in "-" all the same.
		{"db-x-", "db-x"},
	}
	for _, tt := range tests {
		if got := layout.KratixWorkPrefix(tt.identifier); got != tt.want {
			t.Errorf("KratixWorkPrefix(%q) = %q, want %q", tt.identifier, got, tt.want)
		}
		if got := layout.KratixWorkPrefix(tt.identifier); len(got) > 56 {
			t.Errorf("KratixWorkPrefix(%q) has %d characters", tt.identifier, len(got))
		}
	}
}

func TestKratixRequestIdentifier(t *testing.T) {
	tests := []struct {
		r    layout.Request
		want string
	}{
		{layout.Request{Promise: "p", Name: "alpha", Namespace: "default", Pipeline: "instance-configure"}, "p-alpha-default-instance-configure"},
		{layout.Request{Promise: "p", Name: "alpha", Pipeline: "instance-configure"}, "p-alpha-instance-configure"},
	}
	for _, tt := range tests {
		if got := layout.KratixRequestIdentifier(tt.r); got != tt.want {
			t.Errorf("KratixRequestIdentifier(%+v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// Index files of mode none as Kratix names them: the namespace, the Work (its identifier cut and
// five random characters), the exact destination and the default group's id.
func TestKratixIndexMatch(t *testing.T) {
	k2 := layout.Target{Destination: "k2", Mode: layout.ModeNone, StorePath: "kratix", Root: "kratix/k2"}
	req := func(promise, name string) layout.Request {
		return layout.Request{Promise: promise, Name: name, Namespace: "default", Pipeline: "instance-configure"}
	}
	alpha := layout.KratixRequestIndex(k2, req("p", "alpha"))
	long := layout.KratixRequestIndex(k2, req("postgres", "a-very-long-request-name-for-the-orders-team"))
	deps := layout.KratixDependencyIndex(k2, "p")
	dotted := layout.KratixRequestIndex(layout.Target{Destination: "w.1", Root: "w.1"}, req("p", "alpha"))
	tests := []struct {
		name  string
		index layout.KratixIndex
		path  string
		want  bool
	}{
		{"the request's", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", true},
		{"random characters from a UUID", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-3f9a1.k2-5058f.yaml", true},
		{"four random characters", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2.k2-5058f.yaml", false},
		{"six random characters", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2pq.k2-5058f.yaml", false},
		{"capitals", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-X7K2P.k2-5058f.yaml", false},
		{"no random characters (ours)", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure.k2-5058f.yaml", false},
		{"our own name", alpha, "kratix/k2/.kratix/default-p_alpha_default_instance-configure.k2-5058f.yaml", false},
		{"another destination", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k1-5058f.yaml", false},
		{"a destination that ends like it", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.xk2-5058f.yaml", false},
		{"another group", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-1a2b3.yaml", false},
		{"another root", alpha, "kratix/k1/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"in a sub-folder", alpha, "kratix/k2/.kratix/old/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"another pipeline", alpha, "kratix/k2/.kratix/default-p-alpha-default-other-x7k2p.k2-5058f.yaml", false},
		{"another namespace", alpha, "kratix/k2/.kratix/team-p-alpha-team-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"request alpha-2", alpha, "kratix/k2/.kratix/default-p-alpha-2-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"a .yml suffix", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yml", false},
		{"cut at 56 characters", long, "kratix/k2/.kratix/default-postgres-a-very-long-request-name-for-the-orders-team-de-x7k2p.k2-5058f.yaml", true},
		{"not cut", long, "kratix/k2/.kratix/default-postgres-a-very-long-request-name-for-the-orders-team-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"the promise's", deps, "kratix/k2/.kratix/kratix-platform-system-p-static-deps-q3v9z.k2-5058f.yaml", true},
		{"promise p-static's", deps, "kratix/k2/.kratix/kratix-platform-system-p-static-static-deps-q3v9z.k2-5058f.yaml", false},
		{"a request's, for the promise", deps, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"a dot in the destination is a dot", dotted, "w.1/.kratix/default-p-alpha-default-instance-configure-x7k2p.w.1-5058f.yaml", true},
		{"and nothing else", dotted, "w.1/.kratix/default-p-alpha-default-instance-configure-x7k2p.wx1-5058f.yaml", false},
	}
	for _, tt := range tests {
		if got := tt.index.Match(tt.path); got != tt.want {
			t.Errorf("%s: Match(%q) = %v, want %v", tt.name, tt.path, got, tt.want)
		}
	}
	if alpha.Dir != "kratix/k2/.kratix/" {
		t.Errorf("Dir = %q, want kratix/k2/.kratix/", alpha.Dir)
	}
	if root := layout.KratixRequestIndex(layout.Target{Destination: "k2"}, req("p", "alpha")); root.Dir != ".kratix/" {
		t.Errorf("Dir at the store root = %q, want .kratix/", root.Dir)
	}
}

// Kratix's names cannot tell request "a-b" of promise "db" from request "b" of promise "db-a":
// both match the same file, which the adoption must then refuse to choose between.
func TestKratixIndexAmbiguous(t *testing.T) {
	k2 := layout.Target{Destination: "k2", Root: "k2"}
	file := "k2/.kratix/default-db-a-b-default-instance-configure-x7k2p.k2-5058f.yaml"
	for _, r := range []layout.Request{
		{Promise: "db", Name: "a-b", Namespace: "default", Pipeline: "instance-configure"},
		{Promise: "db-a", Name: "b", Namespace: "default", Pipeline: "instance-configure"},
	} {
		if !layout.KratixRequestIndex(k2, r).Match(file) {
			t.Errorf("request %s of promise %s does not match %s", r.Name, r.Promise, file)
		}
	}
	if strings.Contains(layout.RequestWork(layout.Request{Promise: "db", Name: "a-b"}), "db-a-b") {
		t.Error("this provider's own names should keep them apart")
	}
}

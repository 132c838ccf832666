package layout_test

import (
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// Kratix keeps an identifier of up to 57 characters whole and cuts a longer one to 56
// (lib/objectutil/name.go: maxNameLength is 63-1-5, and a longer name is cut to maxNameLength-1),
// then drops any trailing character that is not a letter or a digit, before adding "-" and five
// random characters.
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
		// Exactly 57 characters: kept whole too.
		{"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", "db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"},
		// 58 characters: cut to 56.
		{"db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabc", "db-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
		// Short, but ending in "-" all the same.
		{"db-x-", "db-x"},
	}
	for _, tt := range tests {
		if got := layout.KratixWorkPrefix(tt.identifier); got != tt.want {
			t.Errorf("KratixWorkPrefix(%q) = %q, want %q", tt.identifier, got, tt.want)
		}
		if got := layout.KratixWorkPrefix(tt.identifier); len(got) > 57 {
			t.Errorf("KratixWorkPrefix(%q) has %d characters", tt.identifier, len(got))
		}
	}
}

// A default promise's request Work has no namespace part (Kratix passes --resource-namespace to
// its work-creator only when the promise sets workflows.config.pipelineNamespace): request
// sample-b of promise sample, seen from a real Kratix, was `sample-sample-b-instance-configure-e4d7c`.
func TestKratixRequestIdentifier(t *testing.T) {
	r := layout.Request{Promise: "sample", Name: "sample-b", Namespace: "default", Pipeline: "instance-configure"}
	if got, want := layout.KratixRequestIdentifier(r), "sample-sample-b-instance-configure"; got != want {
		t.Errorf("KratixRequestIdentifier = %q, want %q", got, want)
	}
	if got, want := layout.KratixNamespacedRequestIdentifier(r), "sample-sample-b-default-instance-configure"; got != want {
		t.Errorf("KratixNamespacedRequestIdentifier = %q, want %q", got, want)
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
		{"the request's, default promise", alpha, "kratix/k2/.kratix/default-p-alpha-instance-configure-x7k2p.k2-5058f.yaml", true},
		{"the request's, pipelineNamespace set", alpha, "kratix/k2/.kratix/pipelines-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", true},
		{"the request's, pipelineNamespace default", alpha, "kratix/k2/.kratix/default-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", true},
		{"a pipelineNamespace with dashes", alpha, "kratix/k2/.kratix/team-pipelines-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", true},
		{"the real one", layout.KratixRequestIndex(layout.Target{Destination: "worker-1", Root: "worker-1"},
			layout.Request{Promise: "sample", Name: "sample-b", Namespace: "default", Pipeline: "instance-configure"}),
			"worker-1/.kratix/default-sample-sample-b-instance-configure-e4d7c.worker-1-5058f.yaml", true},
		{"default promise, another namespace", alpha, "kratix/k2/.kratix/team-p-alpha-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"a pipelineNamespace that is no namespace", alpha, "kratix/k2/.kratix/-p-alpha-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"request alpha-2, default promise", alpha, "kratix/k2/.kratix/default-p-alpha-2-instance-configure-x7k2p.k2-5058f.yaml", false},
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
		{"cut at 56 characters", long, "kratix/k2/.kratix/default-postgres-a-very-long-request-name-for-the-orders-team-in-x7k2p.k2-5058f.yaml", true},
		{"cut at 56 characters, pipelineNamespace set", long, "kratix/k2/.kratix/pipelines-postgres-a-very-long-request-name-for-the-orders-team-de-x7k2p.k2-5058f.yaml", true},
		{"not cut", long, "kratix/k2/.kratix/default-postgres-a-very-long-request-name-for-the-orders-team-default-instance-configure-x7k2p.k2-5058f.yaml", false},
		{"not cut, default promise", long, "kratix/k2/.kratix/default-postgres-a-very-long-request-name-for-the-orders-team-instance-configure-x7k2p.k2-5058f.yaml", false},
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
	file := "k2/.kratix/default-db-a-b-instance-configure-x7k2p.k2-5058f.yaml"
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

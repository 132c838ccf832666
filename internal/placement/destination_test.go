package placement_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// Canary files: the canary paths of each mode and their exact bytes; init_workloads = false deletes
// both whether or not state recorded them.
func TestPlanCanaries(t *testing.T) {
	tests := []struct {
		mode      layout.Mode
		namespace string
		configMap string
	}{
		{layout.ModeNestedByMetadata, "kratix/dev/dependencies/kratix-canary-namespace.yaml", "kratix/dev/resources/kratix-canary-configmap.yaml"},
		{layout.ModeNone, "kratix/dev/kratix-canary-namespace.yaml", "kratix/dev/kratix-canary-configmap.yaml"},
		{layout.ModeAggregatedYAML, "kratix/dev/kratix-canary-namespace.yaml", "kratix/dev/kratix-canary-configmap.yaml"},
		{layout.ModeSplitByKind, "kratix/dev/crds/kratix-crds.yaml", "kratix/dev/resources/kratix-resources.yaml"},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode)+"/init_workloads", func(t *testing.T) {
			p := placement.PlanCanaries(dev(tt.mode), true)
			if len(p.Ops) != 1 {
				t.Fatalf("got %d Ops, want 1", len(p.Ops))
			}
			op := p.Ops[0]
			equal(t, "Put", strPut(op.Change.Put), map[string]string{tt.namespace: canaryNamespace, tt.configMap: canaryConfigMap})
			sameSet(t, "Delete", op.Change.Delete, nil)
			sameSet(t, "Prune", op.Change.Prune, nil)
			equal(t, "Records[dev].Files", p.Records["dev"].Files, map[string]string{
				tt.namespace: md5hex(canaryNamespace), tt.configMap: md5hex(canaryConfigMap)})
		})
		t.Run(string(tt.mode)+"/no init_workloads", func(t *testing.T) {
			p := placement.PlanCanaries(dev(tt.mode), false)
			if len(p.Ops) != 1 {
				t.Fatalf("got %d Ops, want 1", len(p.Ops))
			}
			op := p.Ops[0]
			if len(op.Change.Put) != 0 {
				t.Errorf("Put = %v, want nothing", strPut(op.Change.Put))
			}
			sameSet(t, "Delete", op.Change.Delete, []string{tt.namespace, tt.configMap})
			if !emptyish(p.Records["dev"].Files) {
				t.Errorf("Records[dev].Files = %v, want none", p.Records["dev"].Files)
			}
		})
	}
}

// Ownership, cleanup = "all": what the destination's placements and canaries own goes, confined to
// its folder (paths read from index files too); a file beside them stays.
func TestCleanup(t *testing.T) {
	outsideIndex := layout.Index{Files: []string{
		"dev/app.yaml",        // inside: goes
		"dev/static/x.yaml",   // inside: goes
		"prod/app.yaml",       // another destination's folder
		"../etc/passwd",       // outside the store path
		"dev/../prod/b.yaml",  // leaves the folder through ".."
		"devx/app.yaml",       // a sibling that shares the prefix "dev"
		"/kratix/prod/a.yaml", // absolute
	}}
	tests := []struct {
		name    string
		target  layout.Target
		listing []string
		indexes map[string]layout.Index
		want    []string
	}{
		{
			name:   "nestedByMetadata",
			target: layout.Target{Destination: "dev", Mode: layout.ModeNestedByMetadata, StorePath: storePath, Root: devRoot},
			listing: []string{
				nestedDepsFile,
				"kratix/dev/dependencies/redis/5058f/static/redis-dependencies.yaml",
				nestedReqDB,
				"kratix/dev/dependencies/kratix-canary-namespace.yaml",
				"kratix/dev/resources/kratix-canary-configmap.yaml",
				"kratix/dev/resources/kustomization.yaml",
				"kratix/dev/dependencies/kustomization.yaml",
				"kratix/dev/README.md",
				"kratix/dev/.kratix/default-app.dev-5058f.yaml",
				"kratix/devx/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml", // not under the folder
			},
			indexes: map[string]layout.Index{
				"kratix/dev/.kratix/default-app.dev-5058f.yaml":   outsideIndex,
				"kratix/prod/.kratix/default-app.prod-5058f.yaml": {Files: []string{"prod/app.yaml"}}, // not ours
			},
			want: []string{
				nestedDepsFile,
				"kratix/dev/dependencies/redis/5058f/static/redis-dependencies.yaml",
				nestedReqDB,
				"kratix/dev/dependencies/kratix-canary-namespace.yaml",
				"kratix/dev/resources/kratix-canary-configmap.yaml",
				"kratix/dev/.kratix/default-app.dev-5058f.yaml",
				"kratix/dev/app.yaml",
				"kratix/dev/static/x.yaml",
			},
		},
		{
			name:   "splitByKind",
			target: layout.Target{Destination: "dev", Mode: layout.ModeSplitByKind, StorePath: storePath, Root: devRoot},
			listing: []string{
				splitCRDs, splitOthers,
				"kratix/dev/resources/01-default-postgres-default-default-db-resources.yaml",
				"kratix/dev/crds/kratix-crds.yaml",
				"kratix/dev/resources/kratix-resources.yaml",
				"kratix/dev/crds/kustomization.yaml",
				"kratix/dev/resources/kustomization.yaml",
				"kratix/dev/README.md",
			},
			want: []string{
				splitCRDs, splitOthers,
				"kratix/dev/resources/01-default-postgres-default-default-db-resources.yaml",
				"kratix/dev/crds/kratix-crds.yaml",
				"kratix/dev/resources/kratix-resources.yaml",
			},
		},
		{
			name:   "aggregatedYAML",
			target: layout.Target{Destination: "dev", Mode: layout.ModeAggregatedYAML, StorePath: storePath, Root: devRoot},
			listing: []string{
				aggFile,
				"kratix/dev/kratix-canary-namespace.yaml",
				"kratix/dev/kratix-canary-configmap.yaml",
				"kratix/dev/kustomization.yaml",
				"kratix/dev/README.md",
			},
			// The parts folder is outside the destination's folder but is the destination's own.
			want: []string{
				aggFile,
				"kratix/dev/kratix-canary-namespace.yaml",
				"kratix/dev/kratix-canary-configmap.yaml",
				aggPartsDir,
			},
		},
		{
			name:   "none",
			target: layout.Target{Destination: "dev", Mode: layout.ModeNone, StorePath: storePath, Root: devRoot},
			listing: []string{
				noneDepsFile, noneDepsIndex,
				"kratix/dev/kratix-canary-namespace.yaml",
				"kratix/dev/kratix-canary-configmap.yaml",
				"kratix/dev/kustomization.yaml",
				"kratix/dev/README.md",
			},
			indexes: map[string]layout.Index{
				noneDepsIndex: {Files: []string{"dev/static/jenkins-dependencies.yaml", "prod/static/jenkins-dependencies.yaml"}},
			},
			want: []string{
				noneDepsFile, noneDepsIndex,
				"kratix/dev/kratix-canary-namespace.yaml",
				"kratix/dev/kratix-canary-configmap.yaml",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := placement.Cleanup(tt.target, tt.listing, tt.indexes)
			if len(c.Put) != 0 || len(c.Prune) != 0 {
				t.Errorf("Cleanup puts %v and prunes %q, want deletes only", strPut(c.Put), c.Prune)
			}
			sameSet(t, "Delete", c.Delete, tt.want)
			for _, d := range c.Delete {
				if !strings.HasPrefix(d, devRoot+"/") && d != aggPartsDir {
					t.Errorf("Cleanup deletes %q, outside the destination's folder", d)
				}
			}
		})
	}
}

// RequestsHeld reads the requests of a nestedByMetadata folder from its paths, each once,
// ignoring canaries, dependencies and files beside them; other modes do not say.
func TestRequestsHeld(t *testing.T) {
	target := layout.Target{Destination: "w1", Mode: layout.ModeNestedByMetadata, Root: "team/w1"}
	listing := []string{
		"team/w1/resources/default/app/r1/instance-configure/5058f/r1.yaml",
		"team/w1/resources/default/app/r1/instance-configure/5058f/extra.yaml",
		"team/w1/resources/team-b/db/main/instance-configure/d77d5/db/x.yaml",
		"team/w1/resources/kratix-canary-configmap.yaml",
		"team/w1/dependencies/app/5058f/static/app-dependencies.yaml",
		"team/w1/resources/kustomization.yaml",
		"team/w10/resources/default/app/r9/instance-configure/5058f/r9.yaml",
	}
	ids, known := placement.RequestsHeld(target, listing)
	if want := []string{"app/default/r1", "db/team-b/main"}; !known || !slices.Equal(ids, want) {
		t.Errorf("RequestsHeld = %v, %v; want %v, true", ids, known, want)
	}
	if _, known := placement.RequestsHeld(layout.Target{Mode: layout.ModeNone, Root: "team/w1"}, listing); known {
		t.Error("mode none: RequestsHeld says it knows")
	}
}

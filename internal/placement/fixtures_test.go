package placement_test

import (
	"crypto/md5"
	"encoding/hex"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The fixtures below are the documented examples of scheduling, layout and writing, written out by hand: a store whose
// path is "kratix", a destination "dev" whose folder is "kratix/dev", promise "jenkins" and
// request postgres/default/db. Expected paths and hashes in the tests are literals, never
// computed by the package under test.

const (
	storePath = "kratix"
	devRoot   = "kratix/dev"

	depsYAML   = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: jenkins\n"
	depsMD5    = "4a02a054e79b537f4fbdf9693c836292" // md5sum of depsYAML
	depsV2YAML = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: jenkins-v2\n"
	depsV2MD5  = "975f53925e5155046537214df742b214"

	// nestedByMetadata: ROOT/dependencies/<promise>/5058f/static/<promise>-dependencies.yaml.
	nestedDepsDir  = "kratix/dev/dependencies/jenkins/5058f/"
	nestedDepsFile = "kratix/dev/dependencies/jenkins/5058f/static/jenkins-dependencies.yaml"
	// none: ROOT/static/<promise>-dependencies.yaml and
	// ROOT/.kratix/kratix-platform-system-<placement>.yaml listing it relative to the store path.
	noneDepsFile    = "kratix/dev/static/jenkins-dependencies.yaml"
	noneDepsIndex   = "kratix/dev/.kratix/kratix-platform-system-jenkins-static-deps.dev-5058f.yaml"
	noneDepsIndexV1 = "files:\n- dev/static/jenkins-dependencies.yaml\n"
	// aggregatedYAML: the part lives outside ROOT, under
	// <storePath>/.kratix-aggregates/<root rel. to store path>/<filename>/<placement>.part.
	aggFile      = "kratix/dev/aggregated.yaml"
	aggPartsDir  = "kratix/.kratix-aggregates/dev/aggregated.yaml/"
	aggDepsPart  = "kratix/.kratix-aggregates/dev/aggregated.yaml/jenkins-static-deps.dev-5058f.part"
	splitCRDs    = "kratix/dev/crds/00-default-jenkins-default-crds.yaml"
	splitOthers  = "kratix/dev/resources/01-default-jenkins-default-resources.yaml"
	requestKey   = "default/postgres/db"
	nestedReqDir = "kratix/dev/resources/default/postgres/db/instance-configure/5058f/"
)

// The exact bytes of Kratix's canary files.
const (
	canaryNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n"
	canaryConfigMap = "apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n"
)

// Locations. Only these helpers name the (temporary) Location constructors, so that the tests
// survive the full normalisation replacing location.go.
func locA() placement.Location { return placement.BucketLocation("http://minio:9000", "store-a") }
func locB() placement.Location { return placement.BucketLocation("http://minio:9000", "store-b") }

// member is destination name at loc, folder root under store path sp, in mode m.
func member(name string, loc placement.Location, sp, root string, m layout.Mode, labels map[string]string) placement.Member {
	return placement.Member{
		Destination: scheduling.Destination{Name: name, Labels: labels},
		Store:       "store",
		Location:    loc,
		Target:      layout.Target{Destination: name, Mode: m, StorePath: sp, Root: root},
	}
}

// dev is the usual destination "dev" (env=dev) at location A, folder kratix/dev.
func dev(m layout.Mode) placement.Member {
	return member("dev", locA(), storePath, devRoot, m, map[string]string{"env": "dev"})
}

func withAggName(m placement.Member, name string) placement.Member {
	m.Target.AggregatedFilename = name
	return m
}

func deps(all string) layout.Dependencies {
	d := layout.Dependencies{Promise: "jenkins"}
	if all != "" {
		d.All = []byte(all)
		d.Others = []byte(all) // a Namespace is not a CRD
	}
	return d
}

func envSelector(env string) scheduling.Selector {
	return scheduling.Selector{MatchLabels: map[string]string{"env": env}}
}

// md5hex is an independent MD5 (crypto/md5), for contents whose sum is not spelled out.
func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func planPromise(t *testing.T, in placement.Promise) placement.Plan {
	t.Helper()
	p, _, err := placement.PlanPromise(in)
	if err != nil {
		t.Fatalf("PlanPromise: %v", err)
	}
	return p
}

func strPut(put map[string][]byte) map[string]string {
	out := map[string]string{}
	for p, c := range put {
		out[p] = string(c)
	}
	return out
}

// opAt returns the Op at loc, failing the test if there is none.
func opAt(t *testing.T, ops []placement.Op, loc placement.Location) placement.Op {
	t.Helper()
	for _, op := range ops {
		if op.Location == loc {
			return op
		}
	}
	t.Fatalf("no Op at %s among %d ops", loc, len(ops))
	return placement.Op{}
}

func equal[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %#v\n want %#v", what, got, want)
	}
}

// emptyish treats nil and empty maps and slices alike.
func emptyish(v any) bool {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Map, reflect.Slice:
		return r.Len() == 0
	}
	return v == nil
}

func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	g := append([]string(nil), got...)
	w := append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	if len(g) == 0 && len(w) == 0 {
		return
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %q\n want %q", what, g, w)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// covers reports whether deleting d removes p: d is p, or a folder (ending in "/") above it.
func covers(d, p string) bool {
	return d == p || strings.HasSuffix(d, "/") && strings.HasPrefix(p, d)
}

package refmodel

// Workspaces: the reference model of TestAccModelWorkspaces_* (issue 39, point 6). Two or three
// Terraform workspaces (working directories with states of their own, each with its own provider
// `owner`) share one store. Random steps register and deregister destinations, place promises on
// destination folders named as literal pool members (a promise of one name may be placed by
// several workspaces, each on its own folders: shards), destroy them, claim what another
// workspace holds (refused at plan, naming both owners, the store untouched), destroy a whole
// workspace (the others' files intact), and read the registry with data.kratix_destinations.
// After every step the whole store must hold what Expect says, byte for byte once Bookkeeping has
// blanked the instance tokens and times of the registry's records.
//
// Written from the documentation alone (the destination page's Registration section, the
// troubleshooting guide's "Two workspaces on one folder"), like the rest of the package.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The names a seed draws from: few enough that workspaces meet on them.
var (
	wsDestNames    = []string{"d0", "d1", "d2", "d3"}
	wsPromiseNames = []string{"p0", "p1", "p2"}
)

// WsStoreName is the name every workspace's kratix_state_store gives the shared store (a
// registration record's spec.stateStoreRef.name).
const WsStoreName = "shared"

// WsOpNames are the operations of the workspaces model, as KRATIX_MODEL_WS_OPS names them.
var WsOpNames = []string{"register", "takedest", "deregister", "place", "claim", "unplace", "destroy", "discover"}

// wsOpWeights: how often each operation is drawn, among those that can be made.
var wsOpWeights = map[string]int{"register": 3, "takedest": 2, "deregister": 2, "place": 4, "claim": 3, "unplace": 2, "destroy": 1, "discover": 1}

// The refusals the plan makes (the destination page, the troubleshooting guide).
const (
	RefusalDestination = "Destination Registered By Another Owner"
	RefusalPlacement   = "Placement Held By Another Owner"
)

type wsWorkspace struct {
	owner string
	dests []string            // the destinations it registers (kratix_destination), sorted
	all   map[string]bool     // those of them with cleanup = "all"
	proms map[string][]string // its promises: name => the folders (destinations) it places them on, sorted
	state bool                // it has a state (applied since its last destroy): its data source reads at plan
}

// Workspaces is the model of one seed.
type Workspaces struct {
	rng      *rand.Rand
	ws       []*wsWorkspace
	canaries map[string]bool // destination folders that hold canaries: cleanup "none" leaves them
}

// WsOp is one step: what to run in which workspace and what must follow.
type WsOp struct {
	Name string
	WS   int    // the workspace that runs the command
	Desc string // what it does, for the report
	// Command is "apply", "plan" (a claim: the plan must be refused) or "destroy".
	Command string
	// ExpectError is the refusal the plan must make; ExpectAlso what it must say besides
	// (both owners), words separated by single spaces.
	ExpectError string
	ExpectAlso  []string
	// NoWrite: the step must write nothing at all to the store.
	NoWrite bool
	revert  func()
	// cleaned are the destinations whose destroy cleans their folders up (cleanup = "all").
	cleaned []string
}

// Revert undoes a refused step's change of its workspace's configuration.
func (o WsOp) Revert() {
	if o.revert != nil {
		o.revert()
	}
}

// NewWorkspaces draws the workspaces of seed: two or three, owners team-0, team-1 (and team-2).
func NewWorkspaces(seed int64) *Workspaces {
	m := &Workspaces{rng: newModelRNG(seed), canaries: map[string]bool{}}
	for i := range 2 + m.rng.IntN(2) {
		m.ws = append(m.ws, &wsWorkspace{owner: fmt.Sprintf("team-%d", i), proms: map[string][]string{}, all: map[string]bool{}})
	}
	return m
}

// Count is how many workspaces share the store.
func (m *Workspaces) Count() int { return len(m.ws) }

// Owner is workspace i's provider owner.
func (m *Workspaces) Owner(i int) string { return m.ws[i].owner }

// HasState reports whether workspace i has applied since it was created or destroyed: then its
// data.kratix_destinations is read at plan, before the apply writes.
func (m *Workspaces) HasState(i int) bool { return m.ws[i].state }

// Applied tells the model that workspace i's command ran as the step said.
func (m *Workspaces) Applied(op WsOp) {
	w := m.ws[op.WS]
	switch op.Command {
	case "apply":
		w.state = true
		for _, d := range w.dests {
			m.canaries[d] = true
		}
	case "destroy":
		w.state = false
		w.dests, w.proms, w.all = nil, map[string][]string{}, map[string]bool{}
	}
	for _, d := range op.cleaned {
		delete(m.canaries, d)
	}
}

// Registered is every destination a workspace registers, sorted: what data.kratix_destinations
// lists.
func (m *Workspaces) Registered() []string {
	var out []string
	for _, w := range m.ws {
		out = append(out, w.dests...)
	}
	sort.Strings(out)
	return out
}

// RegisteredBy is what workspace i registers, sorted: what its data.kratix_destinations
// selecting its own label (team = its owner) lists.
func (m *Workspaces) RegisteredBy(i int) []string { return slices.Clone(m.ws[i].dests) }

// registrar is the workspace that registers destination d, -1 for none.
func (m *Workspaces) registrar(d string) int {
	for i, w := range m.ws {
		if slices.Contains(w.dests, d) {
			return i
		}
	}
	return -1
}

// holder is the workspace whose promise p is placed on folder d, -1 for none.
func (m *Workspaces) holder(p, d string) int {
	for i, w := range m.ws {
		if slices.Contains(w.proms[p], d) {
			return i
		}
	}
	return -1
}

func withName(xs []string, x string) []string {
	out := append(slices.Clone(xs), x)
	sort.Strings(out)
	return out
}

func withoutName(xs []string, x string) []string {
	return slices.DeleteFunc(slices.Clone(xs), func(y string) bool { return y == x })
}

// Next draws the next step among ops (names in WsOpNames) and makes it on the configuration.
func (m *Workspaces) Next(ops []string) WsOp {
	for {
		var names []string
		for _, n := range ops {
			for range wsOpWeights[n] {
				names = append(names, n)
			}
		}
		if op, ok := m.try(pick(m.rng, names), m.rng.IntN(len(m.ws))); ok {
			return op
		}
	}
}

// try makes operation name in workspace i, if it can be made there now.
func (m *Workspaces) try(name string, i int) (WsOp, bool) {
	w := m.ws[i]
	op := WsOp{Name: name, WS: i, Command: "apply"}
	switch name {
	case "register", "takedest":
		var free, taken []string
		for _, d := range wsDestNames {
			switch r := m.registrar(d); {
			case r < 0:
				free = append(free, d)
			case r != i:
				taken = append(taken, d)
			}
		}
		if name == "register" {
			if len(free) == 0 {
				return op, false
			}
			d := pick(m.rng, free)
			w.dests = withName(w.dests, d)
			op.Desc = fmt.Sprintf("%s registers destination %s", w.owner, d)
			if m.rng.IntN(3) == 0 {
				w.all[d] = true
				op.Desc += ` with cleanup = "all"`
			}
			return op, true
		}
		if len(taken) == 0 {
			return op, false
		}
		d := pick(m.rng, taken)
		other := m.ws[m.registrar(d)].owner
		prior := w.dests
		w.dests = withName(w.dests, d)
		op.Command, op.ExpectError, op.NoWrite = "plan", RefusalDestination, true
		op.ExpectAlso = []string{fmt.Sprintf("Destination %q is registered in", d), fmt.Sprintf("by owner %q; this configuration's owner is %q", other, w.owner)}
		op.Desc = fmt.Sprintf("%s registers destination %s too, which %s registers: refused", w.owner, d, other)
		op.revert = func() { w.dests = prior }
		return op, true
	case "deregister":
		// A destination with cleanup = "all" is destroyed only once this workspace's own
		// promises have left its folder: the cleanup removes their files too (the destination
		// page), which their next plan would then write again; other owners' placements stay.
		var can []string
		for _, d := range w.dests {
			if !w.all[d] || !slices.ContainsFunc(sortedKeys(w.proms), func(p string) bool { return slices.Contains(w.proms[p], d) }) {
				can = append(can, d)
			}
		}
		if len(can) == 0 {
			return op, false
		}
		d := pick(m.rng, can)
		w.dests = withoutName(w.dests, d)
		op.Desc = fmt.Sprintf("%s deregisters (destroys) destination %s", w.owner, d)
		if w.all[d] {
			op.cleaned = []string{d}
			delete(w.all, d)
			op.Desc += ` (cleanup = "all")`
			if others := m.inFolder(d); len(others) > 0 {
				op.Desc += fmt.Sprintf("; other owners' placements there stay: %s", strings.Join(others, ", "))
			}
		}
		return op, true
	case "place", "claim":
		type spot struct{ p, d string }
		var free, held []spot
		for _, p := range wsPromiseNames {
			for _, d := range wsDestNames {
				switch h := m.holder(p, d); {
				case h < 0:
					free = append(free, spot{p, d})
				case h != i:
					held = append(held, spot{p, d})
				}
			}
		}
		pool := free
		if name == "claim" {
			pool = held
		}
		if len(pool) == 0 {
			return op, false
		}
		s := pick(m.rng, pool)
		holder := m.holder(s.p, s.d)
		prior, had := w.proms[s.p]
		w.proms[s.p] = withName(prior, s.d)
		verb := "places promise " + s.p + " on " + s.d
		if had {
			verb = fmt.Sprintf("adds %s to promise %s's destinations %v", s.d, s.p, prior)
		}
		if name == "place" {
			op.Desc = w.owner + " " + verb
			if others := m.shards(s.p, i); len(others) > 0 {
				op.Desc += fmt.Sprintf(" (other shards of %s: %s)", s.p, strings.Join(others, ", "))
			}
			return op, true
		}
		other := m.ws[holder].owner
		op.Command, op.ExpectError, op.NoWrite = "plan", RefusalPlacement, true
		op.ExpectAlso = []string{fmt.Sprintf("promise/%s of owner %q holds", s.p, other), fmt.Sprintf("This workspace writes as owner %q", w.owner)}
		op.Desc = fmt.Sprintf("%s %s, where %s holds promise %s: refused", w.owner, verb, other, s.p)
		op.revert = func() {
			if had {
				w.proms[s.p] = prior
			} else {
				delete(w.proms, s.p)
			}
		}
		return op, true
	case "unplace":
		if len(w.proms) == 0 {
			return op, false
		}
		p := pick(m.rng, sortedKeys(w.proms))
		op.Desc = fmt.Sprintf("%s destroys promise %s (on %v)", w.owner, p, w.proms[p])
		if others := m.shards(p, i); len(others) > 0 {
			op.Desc += fmt.Sprintf("; the other shards stay: %s", strings.Join(others, ", "))
		}
		delete(w.proms, p)
		return op, true
	case "destroy":
		if !w.state || len(w.dests)+len(w.proms) == 0 {
			return op, false
		}
		op.Command = "destroy"
		for _, d := range w.dests {
			if w.all[d] {
				op.cleaned = append(op.cleaned, d)
			}
		}
		op.Desc = fmt.Sprintf("terraform destroy in %s (destinations %v, promises %v)", w.owner, w.dests, w.proms)
		return op, true
	case "discover":
		if !w.state {
			return op, false
		}
		op.NoWrite = true
		op.Desc = fmt.Sprintf("%s applies its configuration unchanged: its data source lists %v", w.owner, m.Registered())
		return op, true
	}
	return op, false
}

// inFolder names the placements on folder d: "promise p0 of team-1".
func (m *Workspaces) inFolder(d string) []string {
	var out []string
	for _, w := range m.ws {
		for _, p := range sortedKeys(w.proms) {
			if slices.Contains(w.proms[p], d) {
				out = append(out, fmt.Sprintf("promise %s of %s", p, w.owner))
			}
		}
	}
	return out
}

// shards names the other workspaces' placements of promise p: "team-1 on [d2]".
func (m *Workspaces) shards(p string, except int) []string {
	var out []string
	for j, o := range m.ws {
		if j != except && len(o.proms[p]) > 0 {
			out = append(out, fmt.Sprintf("%s on %v", o.owner, o.proms[p]))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// Render is workspace i's configuration: its provider with its owner, the shared store, its
// destinations and promises, and data.kratix_destinations over the store with its names as
// output "registered", and another selecting the label team = its owner as output "own".
func (m *Workspaces) Render(i int, s *Stores) string {
	w := m.ws[i]
	var b strings.Builder
	b.WriteString("terraform {\n  required_providers {\n    kratix = { source = \"promise-platform/kratix\" }\n  }\n}\n")
	b.WriteString(strings.Replace(s.Provider, "provider \"kratix\" {\n", "provider \"kratix\" {\n  owner = "+hclString(w.owner)+"\n", 1))
	fmt.Fprintf(&b, "\nresource \"kratix_state_store\" \"s\" {\n  name       = %q\n  secret_ref = \"s\"\n", WsStoreName)
	if s.Kind == "bucket" {
		fmt.Fprintf(&b, "  bucket = {\n    endpoint    = %s\n    bucket_name = %s\n    insecure    = true\n  }\n}\n", hclString(s.Address(0, 0)), hclString(s.Names[0]))
	} else {
		fmt.Fprintf(&b, "  git = {\n    url    = %s\n    author = { name = %s, email = \"%s@example.com\" }\n  }\n}\n", hclString(s.Address(0, 0)), hclString(w.owner), w.owner)
	}
	b.WriteString("\ndata \"kratix_destinations\" \"all\" {\n  state_stores = [kratix_state_store.s]\n}\n\noutput \"registered\" {\n  value = sort(data.kratix_destinations.all.destinations[*].name)\n}\n")
	fmt.Fprintf(&b, "\ndata \"kratix_destinations\" \"own\" {\n  state_stores          = [kratix_state_store.s]\n  destination_selectors = [{ match_labels = { team = %s } }]\n}\n\noutput \"own\" {\n  value = sort(data.kratix_destinations.own.destinations[*].name)\n}\n", hclString(w.owner))
	for _, d := range w.dests {
		fmt.Fprintf(&b, "\nresource \"kratix_destination\" %q {\n  name        = %q\n  path        = %q\n  labels      = { team = %s }\n  state_store = kratix_state_store.s\n", d, d, d, hclString(w.owner))
		if w.all[d] {
			b.WriteString("  cleanup     = \"all\"\n")
		}
		b.WriteString("}\n")
	}
	for _, p := range sortedKeys(w.proms) {
		var pool []string
		for _, d := range w.proms[p] {
			pool = append(pool, fmt.Sprintf("{ name = %q, path = %q, state_store = kratix_state_store.s }", d, d))
		}
		fmt.Fprintf(&b, "\nresource \"kratix_promise\" %q {\n  name         = %q\n  destinations = [%s]\n  dependencies = %s\n}\n", p, p, strings.Join(pool, ", "), hclString(wsDeps(p, w.owner)))
	}
	return b.String()
}

// wsDeps is the dependencies of promise p in owner's workspace: a Namespace named for both, in
// canonical form, so the file's bytes are the document and say whose it is.
func wsDeps(p, owner string) string { return nsDoc(p + "-" + owner).text }

// wsPromiseFile is where promise p's dependencies land on destination folder d (nestedByMetadata,
// Kratix's default workload group), relative to the store's root.
func wsPromiseFile(p, d string) string {
	return d + "/dependencies/" + p + "/" + modelGroup + "/static/" + p + "-dependencies.yaml"
}

// Expect is every file the store must hold, beyond what it held before the first step (a git
// repository's README), with the registry's records as Bookkeeping leaves them. kind is the
// store's kind ("bucket" or "git-http").
func (m *Workspaces) Expect(kind string) map[string]string {
	out := map[string]string{}
	for d := range m.canaries {
		out[d+"/dependencies/kratix-canary-namespace.yaml"] = modelCanaryNamespace
		out[d+"/resources/kratix-canary-configmap.yaml"] = modelCanaryConfigMap
	}
	storeKind := "BucketStateStore"
	if kind != "bucket" {
		storeKind = "GitStateStore"
	}
	type entry struct{ d, owner string }
	held := map[string][]entry{}
	for _, w := range m.ws {
		for _, d := range w.dests {
			out[".kratix-registry/destinations/"+d+".yaml"] = wsRecord(d, w.owner, storeKind, w.all[d])
		}
		for p, ds := range w.proms {
			for _, d := range ds {
				out[wsPromiseFile(p, d)] = wsDeps(p, w.owner)
				held[p] = append(held[p], entry{d, w.owner})
			}
			if len(ds) > 0 {
				out[".kratix-registry/promises/"+p+"/"+w.owner+".yaml"] = wsPromiseRecord(p, w.owner, storeKind, ds)
			}
		}
	}
	for p, entries := range held {
		sort.Slice(entries, func(a, b int) bool { return entries[a].d < entries[b].d })
		var b strings.Builder
		fmt.Fprintf(&b, "# Owner record of terraform-provider-kratix: who holds promise/%s's placements, folder by folder.\n"+
			"# Another owner's plan that would write, prune or delete them is refused. Do not edit.\nfolders:\n", p)
		for _, e := range entries {
			fmt.Fprintf(&b, "- files:\n  - %s/dependencies/%s/%s/\n  instance: INSTANCE\n  owner: %s\n  root: %s\n", e.d, p, modelGroup, e.owner, e.d)
		}
		fmt.Fprintf(&b, "object: promise/%s\n", p)
		out[".kratix-registry/owners/promise_"+p+".yaml"] = b.String()
	}
	return out
}

// wsPromiseRecord is promise p's published record, placed by owner on folders (sorted), all
// in the one store, of storeKind (the promise page's "Owners across workspaces, and the
// published record"): Kratix's Promise with no selectors, its pool as JSON in an annotation,
// each member a literal {name, path, state_store}; the instance, the time and the store's
// location blanked.
func wsPromiseRecord(p, owner, storeKind string, folders []string) string {
	var pool []string
	for _, d := range folders {
		pool = append(pool, `{"name":"`+d+`","path":"`+d+`","storeKind":"`+storeKind+`","storeName":"`+WsStoreName+`","storeLocation":"LOCATION"}`)
	}
	return `apiVersion: platform.kratix.io/v1alpha1
kind: Promise
metadata:
  annotations:
    terraform.kratix.io/destinations: '[` + strings.Join(pool, ",") + `]'
    terraform.kratix.io/instance-id: INSTANCE
    terraform.kratix.io/owner: ` + owner + `
    terraform.kratix.io/written-at: "WRITTEN"
  name: ` + p + `
spec: {}
`
}

// wsRecord is destination d's registration record, registered by owner in a store of storeKind:
// Kratix's Destination with the provider's annotations, the instance and the time blanked.
func wsRecord(d, owner, storeKind string, all bool) string {
	cleanup := "none"
	if all {
		cleanup = "all"
	}
	return `apiVersion: platform.kratix.io/v1alpha1
kind: Destination
metadata:
  annotations:
    terraform.kratix.io/instance-id: INSTANCE
    terraform.kratix.io/owner: ` + owner + `
    terraform.kratix.io/written-at: "WRITTEN"
  labels:
    team: ` + owner + `
  name: ` + d + `
spec:
  cleanup: ` + cleanup + `
  filepath:
    mode: nestedByMetadata
  initWorkloads:
    enabled: true
  path: ` + d + `
  stateStoreRef:
    kind: ` + storeKind + `
    name: ` + WsStoreName + `
  strictMatchLabels: false
`
}

var (
	wsInstanceID = regexp.MustCompile(`(?m)^(    terraform\.kratix\.io/instance-id: )[0-9a-f]{16}$`)
	wsWrittenAt  = regexp.MustCompile(`(?m)^(    terraform\.kratix\.io/written-at: )"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"$`)
	wsInstance   = regexp.MustCompile(`(?m)^(  instance: )[0-9a-f]{16}$`)
	wsLocation   = regexp.MustCompile(`"storeLocation":"[^"]*"`)
)

// Bookkeeping is content with what the model does not predict blanked: the instance token of a
// record (a new one at each create), the time a record was written and the store's location in
// a promise's record. Nothing else
// of the store is left out of the comparison.
func Bookkeeping(p, content string) string {
	if !strings.HasPrefix(p, ".kratix-registry/") {
		return content
	}
	content = wsInstanceID.ReplaceAllString(content, "${1}INSTANCE")
	content = wsWrittenAt.ReplaceAllString(content, `${1}"WRITTEN"`)
	content = wsLocation.ReplaceAllString(content, `"storeLocation":"LOCATION"`) // the store's place, spelled in TestAccPromiseFromAnotherWorkspace
	return wsInstance.ReplaceAllString(content, "${1}INSTANCE")
}

// StoreProblems compares what the store holds (every file, by path) with Expect, on top of
// initial (what it held before the first step); one line per difference.
func (m *Workspaces) StoreProblems(kind string, initial, actual map[string][]byte) []string {
	want := m.Expect(kind)
	for p, c := range initial {
		want[p] = string(c)
	}
	var out []string
	for _, p := range sortedKeys(want) {
		got, ok := actual[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("missing   %s", p))
		case Bookkeeping(p, string(got)) != want[p]:
			out = append(out, fmt.Sprintf("differs   %s\n    want %q\n    got  %q", p, want[p], got))
		}
	}
	for _, p := range sortedKeys(actual) {
		if _, ok := want[p]; !ok {
			out = append(out, fmt.Sprintf("unexpected %s: %q", p, actual[p]))
		}
	}
	return out
}

// Describe is each workspace's configuration in a line, for failure reports.
func (m *Workspaces) Describe() string {
	var lines []string
	for _, w := range m.ws {
		lines = append(lines, fmt.Sprintf("  %s: destinations %v (cleanup all: %v), promises %v (state: %v)", w.owner, w.dests, sortedKeys(w.all), w.proms, w.state))
	}
	return strings.Join(lines, "\n")
}

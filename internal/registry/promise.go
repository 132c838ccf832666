package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The annotations of a promise's record.
const (
	// AnnotationSelectors is the promise's destination_selectors as JSON, written when an entry
	// has match_expressions, which Kratix's spec.destinationSelectors cannot hold.
	AnnotationSelectors = AnnotationPrefix + "destination-selectors"
	// AnnotationPool is the pool the promise was scheduled over, as JSON (PoolMember): what a
	// request in another workspace needs to be placed as in the promise's own.
	AnnotationPool = AnnotationPrefix + "destinations"
)

// Promise is a promise as its record says it, per owner: what a request in another workspace
// needs to be placed exactly as it would be in the promise's own workspace (the request reads
// its promise's name, selectors and pool, nothing else).
type Promise struct {
	Name      string
	Selectors []scheduling.Selector
	Pool      []PoolMember
	Owner     string
	// Instance is the promise's instance token (new each time the resource is created): a destroy
	// removes the record only while it is still its own, not a create_before_destroy successor's.
	Instance  string
	WrittenAt time.Time
}

// Same reports whether p and o say the same, whenever each was written.
func (p Promise) Same(o Promise) bool {
	p.WrittenAt, o.WrittenAt = time.Time{}, time.Time{}
	return string(RenderPromise(p)) == string(RenderPromise(o))
}

// PoolMember is a destination of a promise's pool, as the promise saw it; its store is named by
// its location (the normalised place, as placements key it), so that a reader gives it the store
// object of its own configuration for the same place.
type PoolMember struct {
	Name               string            `json:"name"`
	Labels             map[string]string `json:"labels,omitempty"`
	Path               string            `json:"path"`
	Mode               string            `json:"filepathMode,omitempty"`
	AggregatedFilename string            `json:"aggregatedFilename,omitempty"`
	StrictMatchLabels  bool              `json:"strictMatchLabels,omitempty"`
	Taints             []taintJSON       `json:"taints,omitempty"`
	Weight             int               `json:"weight,omitempty"`
	Instance           string            `json:"instanceID,omitempty"`
	StoreKind          string            `json:"storeKind"`
	StoreName          string            `json:"storeName"`
	StoreLocation      string            `json:"storeLocation"`
	StorePath          string            `json:"storePath,omitempty"`
}

// TaintList is the member's taints in the scheduling package's terms.
func (m PoolMember) TaintList() []scheduling.Taint {
	out := make([]scheduling.Taint, len(m.Taints))
	for i, t := range m.Taints {
		out[i] = scheduling.Taint(t)
	}
	return out
}

// WithTaints is m with taints.
func (m PoolMember) WithTaints(taints []scheduling.Taint) PoolMember {
	m.Taints = nil
	for _, t := range taints {
		m.Taints = append(m.Taints, taintJSON(t))
	}
	return m
}

type kratixPromise struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       promiseSpc `json:"spec"`
}

type promiseSpc struct {
	DestinationSelectors []matchLabels `json:"destinationSelectors,omitempty"`
}

type matchLabels struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

type selectorJSON struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []requirementJSON `json:"matchExpressions,omitempty"`
}

type requirementJSON struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// RenderPromise is the record of p: Kratix's Promise with its selectors (match_labels) in
// spec.destinationSelectors, and the extensions in annotations. The pool is sorted by name.
func RenderPromise(p Promise) []byte {
	ann := map[string]string{AnnotationWrittenAt: p.WrittenAt.UTC().Truncate(time.Second).Format(time.RFC3339)}
	if p.Owner != "" {
		ann[AnnotationOwner] = p.Owner
	}
	if p.Instance != "" {
		ann[AnnotationInstance] = p.Instance
	}
	pool := slices.Clone(p.Pool)
	sort.Slice(pool, func(i, j int) bool { return pool[i].Name < pool[j].Name })
	for i := range pool {
		if len(pool[i].Labels) == 0 {
			pool[i].Labels = nil
		}
		if pool[i].Mode == string(layout.ModeNestedByMetadata) {
			pool[i].Mode = ""
		}
		if pool[i].AggregatedFilename == layout.DefaultAggregatedFilename {
			pool[i].AggregatedFilename = ""
		}
	}
	if pool == nil {
		pool = []PoolMember{}
	}
	b, _ := json.Marshal(pool) // strings, ints and bools only: cannot fail
	ann[AnnotationPool] = string(b)
	var spec promiseSpc
	expressions := false
	for _, s := range p.Selectors {
		labels := s.MatchLabels
		if labels == nil {
			labels = map[string]string{}
		}
		spec.DestinationSelectors = append(spec.DestinationSelectors, matchLabels{MatchLabels: labels})
		expressions = expressions || len(s.MatchExpressions) > 0
	}
	if expressions {
		sels := make([]selectorJSON, len(p.Selectors))
		for i, s := range p.Selectors {
			sels[i] = selectorJSON{MatchLabels: s.MatchLabels}
			for _, r := range s.MatchExpressions {
				sels[i].MatchExpressions = append(sels[i].MatchExpressions, requirementJSON(r))
			}
		}
		b, _ := json.Marshal(sels)
		ann[AnnotationSelectors] = string(b)
	}
	obj := kratixPromise{APIVersion: APIVersion, Kind: "Promise", Metadata: objectMeta{Name: p.Name, Annotations: ann}, Spec: spec}
	out, err := yaml.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("registry: a Promise does not render: %v", err)) // plain strings and maps: never
	}
	return out
}

// ParsePromise reads a promise's record. A Promise without this provider's annotations (one
// written by Kratix) reads with an empty pool. It fails on YAML it cannot read, on another kind
// or apiVersion, on a Promise without a name, and on an annotation it cannot read.
func ParsePromise(data []byte) (Promise, error) {
	var obj kratixPromise
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return Promise{}, fmt.Errorf("not YAML of a Kubernetes object: %w", err)
	}
	if obj.APIVersion != APIVersion || obj.Kind != "Promise" {
		return Promise{}, fmt.Errorf("apiVersion %q, kind %q: want %s, kind Promise", obj.APIVersion, obj.Kind, APIVersion)
	}
	if obj.Metadata.Name == "" {
		return Promise{}, fmt.Errorf("the Promise has no metadata.name")
	}
	ann := obj.Metadata.Annotations
	p := Promise{Name: obj.Metadata.Name, Owner: ann[AnnotationOwner], Instance: ann[AnnotationInstance], Pool: []PoolMember{}}
	if s, ok := ann[AnnotationWrittenAt]; ok {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return Promise{}, fmt.Errorf("annotation %s: %q is not an RFC 3339 time", AnnotationWrittenAt, s)
		}
		p.WrittenAt = t.UTC()
	}
	if s, ok := ann[AnnotationSelectors]; ok {
		var sels []selectorJSON
		if err := json.Unmarshal([]byte(s), &sels); err != nil {
			return Promise{}, fmt.Errorf("annotation %s: not a JSON list of selectors: %v", AnnotationSelectors, err)
		}
		for _, s := range sels {
			sel := scheduling.Selector{MatchLabels: s.MatchLabels}
			for _, r := range s.MatchExpressions {
				sel.MatchExpressions = append(sel.MatchExpressions, scheduling.Requirement(r))
			}
			p.Selectors = append(p.Selectors, sel)
		}
	} else {
		for _, s := range obj.Spec.DestinationSelectors {
			p.Selectors = append(p.Selectors, scheduling.Selector{MatchLabels: s.MatchLabels})
		}
	}
	if s, ok := ann[AnnotationPool]; ok {
		if err := json.Unmarshal([]byte(s), &p.Pool); err != nil {
			return Promise{}, fmt.Errorf("annotation %s: not a JSON list of destinations: %v", AnnotationPool, err)
		}
	}
	for i, m := range p.Pool {
		if m.Name == "" || m.StoreLocation == "" {
			return Promise{}, fmt.Errorf("annotation %s: destination %d has no name or no storeLocation", AnnotationPool, i+1)
		}
		if m.Mode == "" {
			p.Pool[i].Mode = string(layout.ModeNestedByMetadata)
		}
		if m.AggregatedFilename == "" {
			p.Pool[i].AggregatedFilename = layout.DefaultAggregatedFilename
		}
	}
	return p, nil
}

// Latest keeps, of each owner's records (one per store the owner's pool spans), the one written
// last: a store that missed the owner's last write (it was down) holds an older record.
func Latest(records []Promise) []Promise {
	by := map[string]Promise{}
	for _, r := range records {
		if had, ok := by[r.Owner]; !ok || r.WrittenAt.After(had.WrittenAt) {
			by[r.Owner] = r
		}
	}
	out := make([]Promise, 0, len(by))
	for _, o := range slices.Sorted(maps.Keys(by)) {
		out = append(out, by[o])
	}
	return out
}

// MergePromises is one promise from the records its owners published (each over its own shard
// of the fleet): the union of their pools, sorted by name. The owners must agree on the
// selectors, and no destination may be in two owners' pools unless both say the same of it;
// otherwise the error names the owners and what they disagree on.
func MergePromises(records []Promise) (Promise, error) {
	if len(records) == 0 {
		return Promise{}, fmt.Errorf("no record")
	}
	sorted := slices.Clone(records)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Owner < sorted[j].Owner })
	out := Promise{Name: sorted[0].Name, Selectors: sorted[0].Selectors}
	from := map[string]string{}
	byName := map[string]PoolMember{}
	for _, r := range sorted {
		if r.Name != out.Name {
			return Promise{}, fmt.Errorf("records of promises %q and %q", out.Name, r.Name)
		}
		if !sameSelectors(r.Selectors, out.Selectors) {
			return Promise{}, fmt.Errorf("owners %s and %s publish promise %q with different destination selectors (%v and %v)",
				ownerName(sorted[0].Owner), ownerName(r.Owner), out.Name, selectorsText(out.Selectors), selectorsText(r.Selectors))
		}
		if r.WrittenAt.After(out.WrittenAt) {
			out.WrittenAt = r.WrittenAt
		}
		for _, m := range r.Pool {
			if had, dup := byName[m.Name]; dup {
				if !samePoolMember(had, m) {
					return Promise{}, fmt.Errorf("owners %s and %s both publish promise %q over destination %q, and say different things of it",
						ownerName(from[m.Name]), ownerName(r.Owner), out.Name, m.Name)
				}
				continue
			}
			byName[m.Name], from[m.Name] = m, r.Owner
		}
	}
	for _, n := range slices.Sorted(maps.Keys(byName)) {
		out.Pool = append(out.Pool, byName[n])
	}
	if out.Pool == nil {
		out.Pool = []PoolMember{}
	}
	return out, nil
}

func ownerName(o string) string {
	if o == "" {
		return "(unnamed)"
	}
	return fmt.Sprintf("%q", o)
}

func sameSelectors(a, b []scheduling.Selector) bool {
	return selectorsText(a) == selectorsText(b)
}

func selectorsText(s []scheduling.Selector) string {
	if len(s) == 0 {
		return "none"
	}
	out := ""
	for i, e := range s {
		if i > 0 {
			out += "; "
		}
		out += e.String()
	}
	return out
}

func samePoolMember(a, b PoolMember) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

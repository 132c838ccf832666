package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

// The kinds of Kratix's state stores, as a Destination's stateStoreRef names them.
const (
	BucketStateStore = "BucketStateStore"
	GitStateStore    = "GitStateStore"
)

// Destination is a destination as its record says it: what another workspace needs to schedule
// onto it and to lay out files in its folder exactly as its own workspace does.
type Destination struct {
	Name   string
	Labels map[string]string
	// Path is the destination's path as configured, relative to its store's path.
	Path string
	// StoreKind is BucketStateStore or GitStateStore; StoreName the store resource's name.
	StoreKind, StoreName string
	// Mode is the filepath mode; "" reads as nestedByMetadata.
	Mode layout.Mode
	// AggregatedFilename is aggregatedYAML's file name; "" reads as the default.
	AggregatedFilename string
	StrictMatchLabels  bool
	InitWorkloads      bool
	Cleanup            string
	Taints             []scheduling.Taint
	// Weight is 0 when unset (which schedules as 1).
	Weight   int
	Instance string
	Owner    string
	// WrittenAt is when the record was written; not part of its meaning (see Same).
	WrittenAt time.Time
}

// Same reports whether two records say the same thing, whatever time they were written.
func (d Destination) Same(o Destination) bool {
	a, b := d.normal(), o.normal()
	a.WrittenAt, b.WrittenAt = time.Time{}, time.Time{}
	return a.Name == b.Name && maps.Equal(a.Labels, b.Labels) && a.Path == b.Path && a.StoreKind == b.StoreKind &&
		a.StoreName == b.StoreName && a.Mode == b.Mode && a.AggregatedFilename == b.AggregatedFilename &&
		a.StrictMatchLabels == b.StrictMatchLabels && a.InitWorkloads == b.InitWorkloads && a.Cleanup == b.Cleanup &&
		slices.Equal(a.Taints, b.Taints) && a.Weight == b.Weight && a.Instance == b.Instance && a.Owner == b.Owner
}

// normal spells the defaults one way: no labels is an empty map, "" is nestedByMetadata and the
// default aggregate name.
func (d Destination) normal() Destination {
	if d.Labels == nil {
		d.Labels = map[string]string{}
	}
	if d.Mode == "" {
		d.Mode = layout.ModeNestedByMetadata
	}
	if d.AggregatedFilename == "" {
		d.AggregatedFilename = layout.DefaultAggregatedFilename
	}
	if len(d.Taints) == 0 {
		d.Taints = nil
	}
	return d
}

// kratixDestination is the object as Kratix's CRD spells it (api/v1alpha1/destination_types.go).
type kratixDestination struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   objectMeta     `json:"metadata"`
	Spec       destinationSpc `json:"spec"`
}

type objectMeta struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type destinationSpc struct {
	Path              string       `json:"path,omitempty"`
	StateStoreRef     *storeRef    `json:"stateStoreRef,omitempty"`
	StrictMatchLabels bool         `json:"strictMatchLabels"`
	Filepath          *filepathSpc `json:"filepath,omitempty"`
	Cleanup           string       `json:"cleanup,omitempty"`
	InitWorkloads     *initSpc     `json:"initWorkloads,omitempty"`
}

type storeRef struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type filepathSpc struct {
	Mode     string `json:"mode"`
	Filename string `json:"filename,omitempty"`
}

type initSpc struct {
	Enabled bool `json:"enabled"`
}

type taintJSON struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

// RenderDestination is the record of d: Kratix's Destination with the extensions in annotations.
func RenderDestination(d Destination) []byte {
	d = d.normal()
	ann := map[string]string{AnnotationWrittenAt: d.WrittenAt.UTC().Truncate(time.Second).Format(time.RFC3339)}
	if d.Owner != "" {
		ann[AnnotationOwner] = d.Owner
	}
	if d.Instance != "" {
		ann[AnnotationInstance] = d.Instance
	}
	if d.Weight > 0 {
		ann[AnnotationWeight] = strconv.Itoa(d.Weight)
	}
	if len(d.Taints) > 0 {
		ts := make([]taintJSON, len(d.Taints))
		for i, t := range d.Taints {
			ts[i] = taintJSON(t)
		}
		b, _ := json.Marshal(ts) // strings only: cannot fail
		ann[AnnotationTaints] = string(b)
	}
	fp := &filepathSpc{Mode: string(d.Mode)}
	if d.AggregatedFilename != layout.DefaultAggregatedFilename {
		fp.Filename = d.AggregatedFilename
	}
	obj := kratixDestination{
		APIVersion: APIVersion, Kind: "Destination",
		Metadata: objectMeta{Name: d.Name, Labels: d.Labels, Annotations: ann},
		Spec: destinationSpc{
			Path: d.Path, StateStoreRef: &storeRef{Kind: d.StoreKind, Name: d.StoreName}, StrictMatchLabels: d.StrictMatchLabels,
			Filepath: fp, Cleanup: d.Cleanup, InitWorkloads: &initSpc{Enabled: d.InitWorkloads},
		},
	}
	if len(obj.Metadata.Labels) == 0 {
		obj.Metadata.Labels = nil
	}
	b, err := yaml.Marshal(obj)
	if err != nil {
		panic(fmt.Sprintf("registry: a Destination does not render: %v", err)) // plain strings and maps: never
	}
	return b
}

// ParseDestination reads a destination's record: Kratix's Destination, with or without this
// provider's annotations (a record seeded from `kubectl get destinations -o yaml` has none, and
// fields Kratix's API server adds, such as status, are ignored). It fails on YAML it cannot read,
// on another kind or apiVersion, on a Destination without a name, and on an annotation of this
// provider whose value it cannot read.
func ParseDestination(data []byte) (Destination, error) {
	var obj kratixDestination
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return Destination{}, fmt.Errorf("not YAML of a Kubernetes object: %w", err)
	}
	if obj.APIVersion != APIVersion || obj.Kind != "Destination" {
		return Destination{}, fmt.Errorf("apiVersion %q, kind %q: want %s, kind Destination", obj.APIVersion, obj.Kind, APIVersion)
	}
	if obj.Metadata.Name == "" {
		return Destination{}, fmt.Errorf("the Destination has no metadata.name")
	}
	d := Destination{
		Name: obj.Metadata.Name, Labels: obj.Metadata.Labels, Path: obj.Spec.Path,
		StrictMatchLabels: obj.Spec.StrictMatchLabels, Cleanup: obj.Spec.Cleanup, InitWorkloads: true,
	}
	if r := obj.Spec.StateStoreRef; r != nil {
		d.StoreKind, d.StoreName = r.Kind, r.Name
	}
	if f := obj.Spec.Filepath; f != nil {
		d.Mode, d.AggregatedFilename = layout.Mode(f.Mode), f.Filename
	}
	if i := obj.Spec.InitWorkloads; i != nil {
		d.InitWorkloads = i.Enabled
	}
	ann := obj.Metadata.Annotations
	d.Owner, d.Instance = ann[AnnotationOwner], ann[AnnotationInstance]
	if s, ok := ann[AnnotationWrittenAt]; ok {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return Destination{}, fmt.Errorf("annotation %s: %q is not an RFC 3339 time", AnnotationWrittenAt, s)
		}
		d.WrittenAt = t.UTC()
	}
	if s, ok := ann[AnnotationWeight]; ok {
		w, err := strconv.Atoi(s)
		if err != nil || w < 1 {
			return Destination{}, fmt.Errorf("annotation %s: %q is not a positive whole number", AnnotationWeight, s)
		}
		d.Weight = w
	}
	if s, ok := ann[AnnotationTaints]; ok {
		var ts []taintJSON
		if err := json.Unmarshal([]byte(s), &ts); err != nil {
			return Destination{}, fmt.Errorf("annotation %s: not a JSON list of taints: %v", AnnotationTaints, err)
		}
		for _, t := range ts {
			d.Taints = append(d.Taints, scheduling.Taint(t))
		}
	}
	if !slices.Contains(layout.Modes, d.normal().Mode) {
		return Destination{}, fmt.Errorf("spec.filepath.mode %q is none of %v", d.Mode, layout.Modes)
	}
	return d.normal(), nil
}

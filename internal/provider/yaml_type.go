package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
)

// manifestsType is a string of multi-document Kubernetes YAML. Two values that differ only in
// formatting (key order, indentation, comments) are semantically equal, so reformatting the
// configuration plans nothing; and a value that is not Kubernetes YAML fails validation with the
// document and line.
type manifestsType struct{ basetypes.StringType }

var (
	_ basetypes.StringTypable                    = manifestsType{}
	_ basetypes.StringValuableWithSemanticEquals = manifestsValue{}
	_ xattr.ValidateableAttribute                = manifestsValue{}
)

func (t manifestsType) String() string { return "manifestsType" }

func (t manifestsType) Equal(o attr.Type) bool {
	_, ok := o.(manifestsType)
	return ok
}

func (t manifestsType) ValueType(context.Context) attr.Value { return manifestsValue{} }

func (t manifestsType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return manifestsValue{StringValue: in}, nil
}

func (t manifestsType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return manifestsValue{StringValue: s}, nil
}

type manifestsValue struct{ basetypes.StringValue }

func (v manifestsValue) Type(context.Context) attr.Type { return manifestsType{} }

func (v manifestsValue) Equal(o attr.Value) bool {
	other, ok := o.(manifestsValue)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals compares the canonical serialisations: the bytes the provider would write.
func (v manifestsValue) StringSemanticEquals(_ context.Context, prior basetypes.StringValuable) (bool, diag.Diagnostics) {
	p, ok := prior.(manifestsValue)
	if !ok {
		return false, nil
	}
	a, errA := canonical(v.ValueString())
	b, errB := canonical(p.ValueString())
	return errA == nil && errB == nil && bytes.Equal(a, b), nil
}

func (v manifestsValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if err := readManifests(v.ValueString()).err; err != nil {
		var me *manifest.Error
		detail := err.Error()
		if errors.As(err, &me) {
			detail = fmt.Sprintf("%s: document %d (line %d): %s", req.Path, me.Document, me.Line, me.Message)
		}
		resp.Diagnostics.Append(invalidYAML(req.Path, detail))
	}
}

// canonical is the canonical serialisation of s: the bytes the provider would write.
func canonical(s string) ([]byte, error) {
	r := readManifests(s)
	return r.all, r.err
}

// readManifests parses s and serialises it canonically, whole and split into CRDs and the
// rest. One Terraform command validates, compares and lays out the same documents several times
// (validation, semantic equality, the plan, then again for the apply), in as many as three
// provider processes, and a large manifest (Tekton's 1.9 MiB) takes a tenth of a second to parse
// and as long to serialise. So each text is read once per process (manifestCache) and, when the
// machine allows, once per machine (manifestDisk: the next process and the next command load the
// bytes). The result is shared: its byte slices are never modified.
func readManifests(s string) *manifests {
	key := memo.TextKey(s)
	if v, ok := manifestCache.Load(key); ok {
		if r, ok := v.(*manifests); ok {
			return r
		}
	}
	disk := manifestDisk()
	r := loadManifests(disk, key)
	if r == nil {
		r = parseManifests(s)
		storeManifests(disk, key, r)
	}
	if manifestCacheSize.Add(1) > manifestCacheMax {
		manifestCache.Clear() // a long-lived process that saw many texts starts over
		manifestCacheSize.Store(1)
	}
	manifestCache.Store(key, r)
	return r
}

// parseManifests reads s: each document is serialised once, and the whole stream, its CRDs and
// the rest are joined from those pieces.
func parseManifests(s string) *manifests {
	docs, err := manifest.Parse([]byte(s))
	if err != nil {
		return &manifests{err: err}
	}
	parts := manifest.Encode(docs)
	var crds, others [][]byte
	for i, d := range docs {
		if manifest.IsCRD(d) {
			crds = append(crds, parts[i])
		} else {
			others = append(others, parts[i])
		}
	}
	// Each joined anew, so that an append by any reader never writes into bytes another shares.
	return &manifests{all: manifest.Join(parts), crds: manifest.Join(crds), others: manifest.Join(others)}
}

// manifests is one text of documents as readManifests read it.
type manifests struct {
	all, crds, others []byte // canonical; crds and others nil when there are none
	err               error  // the parse error, *manifest.Error when it has a position
}

var (
	manifestCache     sync.Map // sha256 of the text => *manifests
	manifestCacheSize atomic.Int64
)

// manifestCacheMax bounds the texts kept: far more than one configuration's promises and
// requests repeat within one command.
const manifestCacheMax = 256

// keepIfSameMeaning returns the prior value when the planned one means the same YAML: Terraform
// accepts it in place of the configured one, so a change of formatting only plans nothing.
func keepIfSameMeaning(ctx context.Context, planned, prior manifestsValue) manifestsValue {
	if prior.IsNull() || prior.IsUnknown() || planned.IsUnknown() {
		return planned
	}
	if same, _ := planned.StringSemanticEquals(ctx, prior); same {
		return prior
	}
	return planned
}

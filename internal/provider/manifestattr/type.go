package manifestattr

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
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
	"github.com/promise-platform/terraform-provider-kratix/internal/memo"
)

// Type is a string of multi-document Kubernetes YAML. Two values that differ only in
// formatting (key order, indentation, comments) are semantically equal, so reformatting the
// configuration plans nothing; and a value that is not Kubernetes YAML fails validation with the
// document and line.
type Type struct{ basetypes.StringType }

var (
	_ basetypes.StringTypable                    = Type{}
	_ basetypes.StringValuableWithSemanticEquals = Value{}
	_ xattr.ValidateableAttribute                = Value{}
)

func (t Type) String() string { return "Type" }

func (t Type) Equal(o attr.Type) bool {
	_, ok := o.(Type)
	return ok
}

func (t Type) ValueType(context.Context) attr.Value { return Value{} }

func (t Type) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return Value{StringValue: in}, nil
}

func (t Type) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return Value{StringValue: s}, nil
}

// Value is a value of Type.
type Value struct{ basetypes.StringValue }

func (v Value) Type(context.Context) attr.Type { return Type{} }

func (v Value) Equal(o attr.Value) bool {
	other, ok := o.(Value)
	return ok && v.StringValue.Equal(other.StringValue)
}

// StringSemanticEquals compares the canonical serialisations: the bytes the provider would write.
func (v Value) StringSemanticEquals(_ context.Context, prior basetypes.StringValuable) (bool, diag.Diagnostics) {
	p, ok := prior.(Value)
	if !ok {
		return false, nil
	}
	a, errA := Canonical(v.ValueString())
	b, errB := Canonical(p.ValueString())
	return errA == nil && errB == nil && bytes.Equal(a, b), nil
}

func (v Value) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if err := Read(v.ValueString()).Err; err != nil {
		var me *manifest.Error
		detail := err.Error()
		if errors.As(err, &me) {
			detail = fmt.Sprintf("%s: document %d (line %d): %s", req.Path, me.Document, me.Line, me.Message)
		}
		resp.Diagnostics.Append(InvalidYAML(req.Path, detail))
	}
}

// Canonical is the canonical serialisation of s: the bytes the provider would write.
func Canonical(s string) ([]byte, error) {
	r := Read(s)
	return r.All, r.Err
}

// Read parses s and serialises it canonically, whole and split into CRDs and the
// rest. One Terraform command validates, compares and lays out the same documents several times
// (validation, semantic equality, the plan, then again for the apply), in as many as three
// provider processes, and a large manifest (Tekton's 1.9 MiB) takes a tenth of a second to parse
// and as long to serialise. So each text is read once per process (manifestCache) and, when the
// machine allows, once per machine (disk: the next process and the next command load the
// bytes). The result is shared: its byte slices are never modified.
func Read(s string) *Parsed {
	key := memo.TextKey(s)
	if v, ok := manifestCache.Load(key); ok {
		if r, ok := v.(*Parsed); ok {
			return r
		}
	}
	disk := disk()
	r := load(disk, key)
	if r == nil {
		r = parse(s)
		store(disk, key, r)
	}
	if manifestCacheSize.Add(1) > manifestCacheMax {
		manifestCache.Clear() // a long-lived process that saw many texts starts over
		manifestCacheSize.Store(1)
	}
	manifestCache.Store(key, r)
	return r
}

// parse reads s: each document is serialised once, and the whole stream, its CRDs and
// the rest are joined from those pieces.
func parse(s string) *Parsed {
	docs, err := manifest.Parse([]byte(s))
	if err != nil {
		return &Parsed{Err: err}
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
	return &Parsed{All: manifest.Join(parts), CRDs: manifest.Join(crds), Others: manifest.Join(others)}
}

// Parsed is one text of documents as Read read it.
type Parsed struct {
	All, CRDs, Others []byte // canonical; CRDs and Others nil when there are none
	Err               error  // the parse error, *manifest.Error when it has a position
}

var (
	manifestCache     sync.Map // sha256 of the text => *Parsed
	manifestCacheSize atomic.Int64
)

// manifestCacheMax bounds the texts kept: far more than one configuration's promises and
// requests repeat within one command.
const manifestCacheMax = 256

// KeepIfSameMeaning returns the prior value when the planned one means the same YAML: Terraform
// accepts it in place of the configured one, so a change of formatting only plans nothing.
func KeepIfSameMeaning(ctx context.Context, planned, prior Value) Value {
	if prior.IsNull() || prior.IsUnknown() || planned.IsUnknown() {
		return planned
	}
	if same, _ := planned.StringSemanticEquals(ctx, prior); same {
		return prior
	}
	return planned
}

// InvalidYAML: the YAML at an attribute is not Kubernetes documents; detail says where and why.
func InvalidYAML(at path.Path, detail string) diag.Diagnostic {
	return diag.NewAttributeErrorDiagnostic(at, "Invalid Kubernetes YAML",
		detail+"\n\nEvery document must be a Kubernetes object with apiVersion, kind and metadata.name.")
}

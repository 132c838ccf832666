package provider

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/promise-platform/terraform-provider-kratix/internal/manifest"
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
	if _, err := manifest.Parse([]byte(v.ValueString())); err != nil {
		var me *manifest.Error
		detail := err.Error()
		if errors.As(err, &me) {
			detail = fmt.Sprintf("%s: document %d (line %d): %s", req.Path, me.Document, me.Line, me.Message)
		}
		resp.Diagnostics.Append(invalidYAML(req.Path, detail))
	}
}

// canonicalCache remembers canonical forms for the life of the provider process: one plan
// compares and lays out the same documents several times, and a large manifest (Tekton's 1.9 MiB)
// takes a noticeable fraction of a second to normalise.
var canonicalCache sync.Map // sha256 of the text => []byte

func canonical(s string) ([]byte, error) {
	key := sha256.Sum256([]byte(s))
	if c, ok := canonicalCache.Load(key); ok {
		b, _ := c.([]byte)
		return b, nil
	}
	docs, err := manifest.Parse([]byte(s))
	if err != nil {
		return nil, err
	}
	b := manifest.Canonical(docs)
	canonicalCache.Store(key, b)
	return b, nil
}

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

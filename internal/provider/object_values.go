package provider

import (
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Reading nested objects by hand. A promise's pool is a list of a hundred or a thousand
// destination objects, converted several times per plan; the framework's reflection (ObjectValue.As)
// made that a tenth of the provider's CPU time on a large plan. These readers take attributes
// straight from the object: a missing attribute, or one of another type, reads as null, as the
// schema never produces either.

func objString(a map[string]attr.Value, name string) types.String {
	v, _ := a[name].(types.String)
	return v
}

func objBool(a map[string]attr.Value, name string) types.Bool {
	v, _ := a[name].(types.Bool)
	return v
}

func objMap(a map[string]attr.Value, name string) types.Map {
	v, _ := a[name].(types.Map)
	return v
}

func objObject(a map[string]attr.Value, name string) types.Object {
	v, _ := a[name].(types.Object)
	return v
}

func objList(a map[string]attr.Value, name string) types.List {
	v, _ := a[name].(types.List)
	return v
}

func objInt64(a map[string]attr.Value, name string) types.Int64 {
	v, _ := a[name].(types.Int64)
	return v
}

// poolModelsFromList reads a pool attribute's elements. known is false while the list or an
// element is unknown; a null element reads as the zero model (poolFromModel reports it).
func poolModelsFromList(list types.List) (out []poolMemberModel, known bool) {
	if list.IsUnknown() {
		return nil, false
	}
	elems := list.Elements()
	out = make([]poolMemberModel, 0, len(elems))
	for _, e := range elems {
		if e.IsUnknown() {
			return nil, false
		}
		obj, isObject := e.(types.Object)
		if !isObject || obj.IsNull() {
			out = append(out, poolMemberModel{})
			continue
		}
		a := obj.Attributes()
		out = append(out, poolMemberModel{
			InstanceID:         objString(a, "instance_id"),
			Name:               objString(a, "name"),
			Labels:             objMap(a, "labels"),
			StateStore:         objObject(a, "state_store"),
			Path:               objString(a, "path"),
			StrictMatchLabels:  objBool(a, "strict_match_labels"),
			Taints:             objList(a, "taints"),
			Weight:             objInt64(a, "weight"),
			FilepathMode:       objString(a, "filepath_mode"),
			AggregatedFilename: objString(a, "aggregated_filename"),
		})
	}
	return out, true
}

// storeRefFromAttributes reads a state_store object that is neither null nor unknown. ok is
// false when a nested object is unknown.
func storeRefFromAttributes(a map[string]attr.Value) (ref storeRefModel, ok bool) {
	ref = storeRefModel{Name: objString(a, "name"), Path: objString(a, "path"), SecretRef: objString(a, "secret_ref")}
	if b := objObject(a, "bucket"); b.IsUnknown() {
		return storeRefModel{}, false
	} else if !b.IsNull() {
		ba := b.Attributes()
		ref.Bucket = &bucketModel{
			Endpoint: objString(ba, "endpoint"), BucketName: objString(ba, "bucket_name"), Insecure: objBool(ba, "insecure"),
			Region: objString(ba, "region"), AuthMethod: objString(ba, "auth_method"),
			Profile: objString(ba, "profile"), STSEndpoint: objString(ba, "sts_endpoint"),
			UseDualStack: objBool(ba, "use_dual_stack"),
		}
		ar := objObject(ba, "assume_role")
		if ar.IsUnknown() {
			return storeRefModel{}, false
		}
		ref.Bucket.AssumeRole = assumeRoleFromObject(ar)
	}
	if g := objObject(a, "git"); g.IsUnknown() {
		return storeRefModel{}, false
	} else if !g.IsNull() {
		ga := g.Attributes()
		ref.Git = &gitModel{URL: objString(ga, "url"), Branch: objString(ga, "branch"), InsecureIgnoreHostKey: objBool(ga, "insecure_ignore_host_key")}
		if au := objObject(ga, "author"); au.IsUnknown() {
			return storeRefModel{}, false
		} else if !au.IsNull() {
			aa := au.Attributes()
			ref.Git.Author = &authorModel{Name: objString(aa, "name"), Email: objString(aa, "email")}
		}
		if sg := objObject(ga, "signing"); sg.IsUnknown() {
			return storeRefModel{}, false
		} else if !sg.IsNull() {
			sa := sg.Attributes()
			ref.Git.Signing = &signingModel{SecretRef: objString(sa, "secret_ref"), Format: objString(sa, "format")}
		}
	}
	return ref, true
}

// attrsCopy is the attributes of object v in a map of their own. tftypes.Value.As hands out the
// value's own map, so an edit of what it returns changes v and every value sharing it: a plan
// compared with the value it was made from would then always look unchanged.
func attrsCopy(v tftypes.Value) (map[string]tftypes.Value, error) {
	var m map[string]tftypes.Value
	if err := v.As(&m); err != nil {
		return nil, err
	}
	return maps.Clone(m), nil
}

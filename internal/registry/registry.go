// Package registry renders and parses the records this provider publishes in a state store so
// that other workspaces can find what one workspace registered (issue 39): a destination's record
// is Kratix's own Destination object, a promise's Kratix's own Promise object, each with this
// provider's extensions in annotations under AnnotationPrefix. A team moving from Kratix can seed
// the registry with `kubectl get destinations -o yaml`, and a human or a Kubernetes tool reads a
// record as a Kratix object.
//
// # Layout
//
// The records of a store whose path is P live under layout.RegistryPrefix(P)
// (P/.kratix-registry/), outside every destination's folder:
//
//	P/.kratix-registry/destinations/<destination name>.yaml
//	P/.kratix-registry/promises/<promise name>/<owner key>.yaml
//
// A promise's record is per owner (OwnerKey): the same promise may be published by several
// workspaces, each over its own shard of the fleet.
//
// # Bytes
//
// Rendering is deterministic: the same record renders to the same bytes (map keys sorted, fields
// in a fixed order). A record's WrittenAt is part of its bytes but not of its meaning: Same
// compares records without it, so that a record rewritten with nothing new is not a change.
//
// It is pure: no Terraform, no I/O.
package registry

import (
	"net/url"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
)

// APIVersion is Kratix's API group and version, which every record carries.
const APIVersion = "platform.kratix.io/v1alpha1"

// AnnotationPrefix starts the name of every annotation this provider adds to a Kratix object.
const AnnotationPrefix = "terraform.kratix.io/"

// The annotations of a record: this provider's extensions of Kratix's objects.
const (
	// AnnotationOwner names the owner that published the record (the provider's `owner`); absent
	// for the unnamed owner.
	AnnotationOwner = AnnotationPrefix + "owner"
	// AnnotationWrittenAt is when the record was written, RFC 3339 in UTC, to the second.
	AnnotationWrittenAt = AnnotationPrefix + "written-at"
	// AnnotationTaints is a destination's taints, as a JSON list of Kubernetes taints
	// ({"key", "value", "effect"}); absent when it has none.
	AnnotationTaints = AnnotationPrefix + "taints"
	// AnnotationWeight is a destination's weight, in decimal; absent when unset (1).
	AnnotationWeight = AnnotationPrefix + "weight"
	// AnnotationInstance is a destination's instance_id, or a promise's instance token: new each time
	// the resource is created.
	AnnotationInstance = AnnotationPrefix + "instance-id"
)

// UnnamedOwnerKey is the owner key of the unnamed owner ("").
const UnnamedOwnerKey = "_unnamed"

// The folders of the registry, under layout.RegistryPrefix.
const (
	destinationsDir = "destinations"
	promisesDir     = "promises"
	recordExt       = ".yaml"
)

// OwnerKey is the file name part that stands for an owner: the owner path-escaped, or
// UnnamedOwnerKey for the unnamed owner. An owner cannot be "_unnamed" by accident and collide:
// OwnerKey("_unnamed") is "_unnamed" too, which names the same records, so the provider's owner
// check refuses nothing it should not; the records say their owner in AnnotationOwner.
func OwnerKey(owner string) string {
	if owner == "" {
		return UnnamedOwnerKey
	}
	return url.PathEscape(owner)
}

// DestinationsPrefix is the listing prefix of the destination records of the store at storePath.
func DestinationsPrefix(storePath string) string {
	return layout.RegistryPrefix(storePath) + destinationsDir + "/"
}

// DestinationPath is where the record of destination name lives in the store at storePath.
func DestinationPath(storePath, name string) string {
	return DestinationsPrefix(storePath) + name + recordExt
}

// IsDestinationPath reports whether p, found under DestinationsPrefix(storePath), is a destination
// record's path (a .yaml file directly in the folder), and gives the destination's name.
func IsDestinationPath(storePath, p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, DestinationsPrefix(storePath))
	if !ok || strings.Contains(rest, "/") {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, recordExt)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}

// PromisesPrefix is the listing prefix of the promise records of the store at storePath.
func PromisesPrefix(storePath string) string {
	return layout.RegistryPrefix(storePath) + promisesDir + "/"
}

// PromisePath is where owner's record of promise name lives in the store at storePath.
func PromisePath(storePath, name, owner string) string {
	return PromisesPrefix(storePath) + name + "/" + OwnerKey(owner) + recordExt
}

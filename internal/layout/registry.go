package layout

import "strings"

// RegistryDir is the folder, under a state store's path, that this provider keeps for its own
// records across workspaces: who owns which placement (owners/), and the destinations and
// promises published for other workspaces to find. No destination may have its folder there, and
// nothing of a GitOps layout is written there; a destination at the store's root (Kratix's root
// destination, whose writes are the files it names) holds it without touching it.
const RegistryDir = ".kratix-registry"

// RegistryPrefix is the listing prefix of the registry of a store whose path is storePath.
func RegistryPrefix(storePath string) string {
	return Prefix(clean(strings.TrimPrefix(storePath, "/")), RegistryDir)
}

// InRegistry reports whether the folder root (a destination's folder, a store path joined with
// the destination's path, as Root returns it) is the registry of the store at storePath or lies
// inside it.
func InRegistry(storePath, root string) bool {
	reg := RegistryPrefix(storePath)
	return root+"/" == reg || strings.HasPrefix(root+"/", reg)
}

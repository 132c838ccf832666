package layout

// The canary documents Kratix writes to a new destination so that its GitOps agent has something
// to apply and the platform team can see the folder is being read. Kratix serialises them from
// Kubernetes objects; these are the exact bytes it produces.
const (
	CanaryNamespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kratix-worker-system\nspec: {}\nstatus: {}\n"
	CanaryConfigMap = "apiVersion: v1\ndata:\n  canary: this confirms your infrastructure is reading from Kratix state stores\nkind: ConfigMap\nmetadata:\n  name: kratix-info\n  namespace: kratix-worker-system\n"
)

// CanaryWorkName is the name Kratix gives the canary write ("Update from: kratix-canary").
const CanaryWorkName = "kratix-canary"

// Canaries returns the canary files of a destination in the given mode, by store path.
func Canaries(mode Mode, root string) map[string][]byte {
	ns, cm := canaryPaths(mode)
	return map[string][]byte{
		Join(root, ns): []byte(CanaryNamespace),
		Join(root, cm): []byte(CanaryConfigMap),
	}
}

func canaryPaths(mode Mode) (namespace, configMap string) {
	switch mode {
	case ModeNone, ModeAggregatedYAML:
		return "kratix-canary-namespace.yaml", "kratix-canary-configmap.yaml"
	case ModeSplitByKind:
		// The names Kratix used before August 2023, when this layout was its only one.
		return "crds/kratix-crds.yaml", "resources/kratix-resources.yaml"
	default:
		return "dependencies/kratix-canary-namespace.yaml", "resources/kratix-canary-configmap.yaml"
	}
}

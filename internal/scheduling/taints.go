package scheduling

// Taint effects, as in Kubernetes (k8s.io/api/core/v1).
const (
	// EffectNoSchedule: nothing new is placed on the destination; what is there stays.
	EffectNoSchedule = "NoSchedule"
	// EffectPreferNoSchedule: the destination is chosen only when no other candidate is left.
	EffectPreferNoSchedule = "PreferNoSchedule"
	// EffectNoExecute: what is there leaves (requests move, dependencies are unscheduled).
	EffectNoExecute = "NoExecute"
)

// Toleration operators, as in Kubernetes.
const (
	TolerationOpEqual  = "Equal"
	TolerationOpExists = "Exists"
)

// Taint marks a destination as unwilling to take work that does not tolerate it.
type Taint struct {
	Key    string
	Value  string // optional
	Effect string // EffectNoSchedule, EffectPreferNoSchedule or EffectNoExecute
}

// Toleration lets work be placed on a destination despite a taint it matches. The fields mean
// what they mean in a Kubernetes toleration: an empty Key with Operator Exists matches every
// taint, an empty Effect matches every effect, and an empty Operator is Equal.
type Toleration struct {
	Key      string
	Operator string
	Value    string
	Effect   string
}

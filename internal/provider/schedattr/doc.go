// Package schedattr is how the scheduling inputs are written in Terraform: the attributes of
// selectors (SelectorsResourceSchema, PlacementSelectorsSchema, SelectorModel), of taints,
// tolerations and weights (TaintsAttribute, TolerationsAttribute, WeightAttribute) with their
// validators, and their readers into internal/scheduling's values (SelectorsFromList,
// TaintsFromList, TolerationsFromList, WeightOf, LabelsFromMap), which validate with
// Kubernetes' rules and say when a value is not known yet.
//
// It is Terraform glue, like internal/provider, of one concern: the destination, promise,
// request and guard schemas, the pool, kratix_placement and provider::kratix::matches all read
// these attributes through it, so they agree; what matches what is internal/scheduling's.
package schedattr

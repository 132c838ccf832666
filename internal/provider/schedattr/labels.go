package schedattr

import "github.com/hashicorp/terraform-plugin-framework/types"

// LabelsFromMap reads a map of labels: a destination's labels, or a selector's match_labels. A
// null value is an absent label, or no requirement on that key: null means "left out" in HCL,
// and `zone = var.zone` with no zone given describes a destination without a zone, not one whose
// zone is "". The promise's pool, kratix_placement and provider::kratix::matches all read labels
// here, so they agree. known is false while the map or one of its values is unknown.
func LabelsFromMap(m types.Map) (labels map[string]string, known bool) {
	labels = map[string]string{}
	if m.IsUnknown() {
		return nil, false
	}
	for k, v := range m.Elements() {
		s, isString := v.(types.String)
		if !isString || s.IsUnknown() {
			return nil, false
		}
		if !s.IsNull() {
			labels[k] = s.ValueString()
		}
	}
	return labels, true
}

// Package tfvalue holds the conversions between Terraform's attribute values and plain Go values
// that the resources, their models and the other rooms of the glue share: maps and lists of
// strings both ways (StringMap, StringMapValue, StringListOf, StringList), lists of objects
// into models (ObjectsAs), the attributes of a protocol value on a copy of their own (AttrsCopy),
// and a map's keys in order (SortedKeys). It knows nothing of Kratix.
package tfvalue

// Package manifestattr is the type of the attributes that hold Kubernetes YAML (a promise's
// dependencies, a request's documents): Type and Value, whose semantic equality compares
// canonical forms, so that reformatting the configuration plans nothing, and whose validation
// names the document and line of what is not Kubernetes YAML (InvalidYAML). Read parses a text
// once per process and, for large texts, once per machine (the sealed disk cache of
// internal/memo/sealed, in the folder CacheDirEnv names), and gives its canonical serialisation
// whole and split into CRDs and the rest (Parsed), which the promise's layout writes.
//
// It is Terraform glue, like internal/provider, of one concern: how a text of documents is read,
// compared and validated. The promise and request resources and their models use it;
// internal/manifest decides what the canonical form is.
package manifestattr

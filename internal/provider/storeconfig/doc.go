// Package storeconfig is the state_store object as Terraform holds it: its model (Ref, with its
// Bucket and Git settings), the schema of that object where the resources take it (RefSchema,
// BucketAWSAttributes) with the validators and the plan modifier that know a store, its one
// reader (FromObject, FromAttributes), where it places files (Place, Location), and the
// provider's secrets (Secrets): their schema, how a set is resolved from the configuration and
// the environment, the plan-time credential checks (CheckCredentials), and the statestore
// configuration a store is opened with (Config).
//
// It is Terraform glue, like internal/provider, but of one concern: how a store is named and
// reached. The provider block, the resources and the pool all read a store object through it,
// so a store is read and checked one way wherever it is given. What opening a store does (the
// pooled clients, the offline switch) stays in internal/provider, which owns the process state;
// what a store does is internal/statestore's.
package storeconfig

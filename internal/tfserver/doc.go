// Package tfserver is a terraform-plugin-framework protocol server with some of its answers
// given directly, for the resource types registered as Kinds (New). It knows nothing of what the
// resources do: it calls their own Schema, Read, ModifyPlan and Create.
//
// A value can hold a large collection (a pool of a hundred or a thousand nested objects). On
// every request the framework walks such a value several times, node by node, looking each
// node's schema up from the root (NullifyCollectionBlocks, TransformDefaults, the schema's plan
// modifiers, write-only nullification). In a plan of 20 objects x 100 nested ones that was more
// than half of the provider's CPU time. So the three requests a no-change `terraform plan` makes
// per object are answered here, with the resource's own Read and ModifyPlan and the values
// decoded once:
//   - UpgradeResourceState of a state at the current version: decode and re-encode, with the
//     write-only attributes null, as the framework does;
//   - ReadResource, by calling Read, unless private state holds a key other than the kind's
//     SteadyPrivateKeys (see steadyPrivate). When Read changes the value, the framework's
//     semantic equality (a value meaning what the state's means keeps the state's) and
//     write-only nulling follow, as in the framework;
//   - PlanResourceChange when nothing changes: the proposed state, with the schema's defaults
//     applied and the write-only attributes null, equals the prior state, and ModifyPlan leaves
//     it as it is without an error. A create is planned by direct_plan.go.
//     Any other plan (a change, an import being adopted, an error) goes to the framework.
//
// Validation is answered by validate_direct.go or validate_pool.go. Everything else goes to the
// framework. Each part checks, when the kind is registered, that the schema holds nothing it
// does not do as the framework does, and leaves the kind to the framework otherwise. The
// framework's private-state type is built in one place (private.go): a direct Read gets the
// request's private state in its ReadRequest.Private, as from the framework, and a direct
// plan or create an empty one in its response. The framework version these
// answers were checked against is pinned by TestFrameworkVersionReviewed (version_test.go).
// A Check (SetCheck) sees every direct answer: the provider's acceptance tests ask the framework
// the same and compare (verify mode).
//
// Files: server.go (registration, upgrade, read, no-change plan), direct_plan.go (plan and apply
// of creates), validate_direct.go and validate_pool.go (validation), codec.go (models in and out
// of plans and states), private.go (the framework's private state), verify.go (verify mode),
// describe.go (what is answered for a kind, for the provider's tests).
package tfserver

package provider

import "testing"

// TestAccRequestMoveFinishes is TestAccPromiseMoveFinishes for a request on the destination: the
// move reaches the promise first (-target, the old place up), then the request's apply fails to
// take its file from the old place; the next plan shows it and its apply removes it.
func TestAccRequestMoveFinishes(t *testing.T) {
	t.Parallel()
	requireAcceptance(t)
	for _, kind := range []string{"bucket", "git-http", "bucket-path"} {
		t.Run(kind, func(t *testing.T) { testMoveFinishes(t, kind, true) })
	}
}

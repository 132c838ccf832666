package provider

import (
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/promise-platform/terraform-provider-kratix/internal/tfserver"
)

// The provider's servers in tfserver's verify mode, for the acceptance tests: every answer the
// fast path gives is also asked of the framework, and a difference fails the step.

// verifiedServer is NewServer as the acceptance tests serve it: in verify mode.
func verifiedServer(version string) func() (tfprotov6.ProviderServer, error) {
	return func() (tfprotov6.ProviderServer, error) {
		s, _, err := newVerifiedServer(version)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}

// newVerifiedServer returns the provider's server in verify mode and its check, which counts the
// direct answers it was given.
func newVerifiedServer(version string) (*tfserver.Server, *tfserver.FrameworkCheck, error) {
	s, err := newFastServer(version)
	if err != nil {
		return nil, nil, err
	}
	return s, s.Verify(), nil
}

// verifiedServerWithClock is newVerifiedServer with the provider reading clock for the time.
func verifiedServerWithClock(clock *fakeClock) (*tfserver.Server, error) {
	p := newProvider("test")
	p.now = clock.now
	s, err := fastServerOf(p)
	if err != nil {
		return nil, err
	}
	s.Verify()
	return s, nil
}

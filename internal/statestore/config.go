package statestore

import "time"

// BucketConfig is everything needed to reach an S3-compatible bucket.
type BucketConfig struct {
	Endpoint     string // host[:port], no scheme
	BucketName   string
	Region       string // optional
	Insecure     bool   // plain HTTP, as Kratix's `insecure`
	AuthMethod   string // "accessKey" (default) or "IAM" (the AWS credential chain)
	CreateBucket bool   // Check creates the bucket when it is missing
	// UseDualStack sends requests to an Amazon endpoint's dual-stack (IPv4 and IPv6) name, as
	// Kratix's useDualStack. minio-go does so by default; Kratix and this provider do not, since
	// the dual-stack names are unreachable from IPv4-only networks without an egress for them.
	UseDualStack bool

	// Profile names the shared config profile the AWS credential chain starts from ("IAM" only);
	// empty means AWS_PROFILE or the default profile.
	Profile string
	// AssumeRole, when set, is a role assumed with the credentials of AuthMethod.
	AssumeRole *AssumeRole
	// STSEndpoint is the URL of the STS API used to assume roles (assume_role, a profile's
	// role_arn, web identity); empty means the SDK's choice (AWS_ENDPOINT_URL_STS, or AWS's).
	STSEndpoint string

	AccessKeyID     string
	SecretAccessKey string
	SessionToken    string
	CACertificate   string // PEM content, added to the system roots
}

// GitConfig is everything needed to reach one branch of a Git repository.
type GitConfig struct {
	URL         string // https://, http://, ssh://, scp-like git@host:org/repo.git, or file://
	Branch      string // default "main"
	AuthorName  string // default "kratix"
	AuthorEmail string

	// InsecureIgnoreHostKey turns off SSH host key checking. TLS is always verified.
	InsecureIgnoreHostKey bool

	Username      string
	Password      string // password or token
	SSHPrivateKey string // PEM/OpenSSH private key content
	KnownHosts    string // known_hosts content
	CACertificate string // PEM content

	// SigningFormat, when set, signs every commit: SigningSSH or SigningOpenPGP, with
	// SigningKey (an OpenSSH or PEM private key, or an armored OpenPGP private key) decrypted
	// by SigningPassphrase when it is encrypted.
	SigningFormat     string
	SigningKey        string
	SigningPassphrase string

	// GitHubApp, when set, authenticates over HTTPS with the App installation's tokens instead
	// of Username and Password.
	GitHubApp GitHubApp
}

// AssumeRole is a role to assume through STS, as the AWS provider's assume_role block.
type AssumeRole struct {
	RoleARN     string
	ExternalID  string        // optional
	SessionName string        // optional; the SDK picks one when empty
	Duration    time.Duration // optional; the SDK asks for 15 minutes when zero
}

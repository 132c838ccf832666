package statestore

// BucketConfig is everything needed to reach an S3-compatible bucket.
type BucketConfig struct {
	Endpoint     string // host[:port], no scheme
	BucketName   string
	Region       string // optional
	Insecure     bool   // plain HTTP, as Kratix's `insecure`
	AuthMethod   string // "accessKey" (default) or "IAM"
	CreateBucket bool   // Check creates the bucket when it is missing

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
}

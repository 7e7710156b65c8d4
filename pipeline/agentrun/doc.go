// Package agentrun owns running the load agent (ybload) on the client
// hosts: per workload family a typed invocation that becomes the agent's
// command line and its private 0600 files, and the remote scripts that ship
// the agent, start it, stop it and list what it wrote (embedded templates,
// golden-tested), run through a provision.Runner. The agent's directory is
// inside the run's own directory on the host, claimed and released only
// through provision.Claim and provision.Release.
//
// The invocations are the one contract between the orchestrator and the
// agent: their tests feed every built-in profile's invocations to the
// agent's own parsers and compare each field with what the agent read.
package agentrun

// Package reserve owns the reserve set: RFC 8785 canonical JSON, the hash of
// a bundle's canonical bytes, salted commitments over reserve bundles, and
// the seal, apply, reveal and verify steps that let anyone check, after the
// fact, that published results came from the bundles committed to before.
package reserve

package gcp

import "strings"

// lastSegment is the name at the end of a resource URL or scope
// (".../zones/us-central1-a", "zones/us-central1-a" → "us-central1-a";
// "" → "").
func lastSegment(s string) string {
	s = strings.TrimRight(s, "/")
	return s[strings.LastIndexByte(s, '/')+1:]
}

// regionOfZone is the region a zone name is in (us-central1-a →
// us-central1): GCE zone names are the region's name and a letter.
func regionOfZone(zone string) string {
	if i := strings.LastIndexByte(zone, '-'); i > 0 {
		return zone[:i]
	}
	return ""
}

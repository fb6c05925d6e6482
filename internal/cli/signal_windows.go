//go:build windows

package cli

// IgnoreFileSizeLimit does nothing: Windows has no file size limit signal.
func IgnoreFileSizeLimit() {}

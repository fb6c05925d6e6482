package main

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"path"
	"strings"
)

// Unity keeps a .meta file beside every asset of a package, naming it by
// a GUID and holding its import settings. unityMeta writes the one of the
// package's file or folder rel (slash-separated, from the package's
// root): its GUID drawn from the package name and rel (the same on every
// run), its importer by the file's kind. The repository holds the .meta
// files of bindings/unity (TestUnityMetas keeps them equal to these); the
// release adds those of Plugins/, whose native libraries it builds.
func unityMeta(rel string, dir bool) []byte {
	sum := md5.Sum([]byte("com.frontiersets.frontiersets/" + rel))
	var b strings.Builder
	fmt.Fprintf(&b, "fileFormatVersion: 2\nguid: %s\n", hex.EncodeToString(sum[:]))
	plain := func(importer string) {
		fmt.Fprintf(&b, "%s:\n  externalObjects: {}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n", importer)
	}
	switch ext := path.Ext(rel); {
	case dir:
		b.WriteString("folderAsset: yes\n")
		plain("DefaultImporter")
	case ext == ".cs":
		b.WriteString("MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n  userData: \n  assetBundleName: \n  assetBundleVariant: \n")
	case ext == ".asmdef":
		plain("AssemblyDefinitionImporter")
	case rel == "package.json":
		plain("PackageManifestImporter")
	case ext == ".so" || ext == ".dll":
		pluginImporter(&b, rel)
	default:
		plain("TextScriptImporter")
	}
	return []byte(b.String())
}

// pluginImporter writes the import settings of a native library at
// Plugins/OS/ARCH/FILE (unityPlugin's layout): enabled in the Editor and
// the standalone player of its OS and CPU only.
func pluginImporter(b *strings.Builder, rel string) {
	parts := strings.Split(rel, "/") // Plugins, os, arch, file
	goos, arch := parts[1], parts[2]
	cpu := map[string]string{"x86_64": "x86_64", "arm64": "ARM64"}[arch]
	editorOS := map[string]string{"linux": "Linux", "windows": "Windows"}[goos]
	player := map[string]string{"linux": "Linux64", "windows": "Win64"}[goos]
	b.WriteString("PluginImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  iconMap: {}\n  executionOrder: {}\n  defineConstraints: []\n" +
		"  isPreloaded: 0\n  isOverridable: 1\n  isExplicitlyReferenced: 0\n  validateReferences: 1\n  platformData:\n" +
		"  - first:\n      Any: \n    second:\n      enabled: 0\n      settings: {}\n")
	fmt.Fprintf(b, "  - first:\n      Editor: Editor\n    second:\n      enabled: 1\n      settings:\n        CPU: %s\n        DefaultValueInitialized: true\n        OS: %s\n", cpu, editorOS)
	for _, p := range []string{"Linux64", "OSXUniversal", "Win", "Win64"} {
		if p == player {
			fmt.Fprintf(b, "  - first:\n      Standalone: %s\n    second:\n      enabled: 1\n      settings:\n        CPU: %s\n", p, cpu)
		} else {
			fmt.Fprintf(b, "  - first:\n      Standalone: %s\n    second:\n      enabled: 0\n      settings:\n        CPU: None\n", p)
		}
	}
	b.WriteString("  userData: \n  assetBundleName: \n  assetBundleVariant: \n")
}

# Sourced by the scripts that build packages depending on this checkout by path: the web package
# (Scripts/test-web), the samples' (check-samples), the plugins' (check-plugins) and the walls'
# (check-module-walls). They share one build folder, so this package's modules and the dependencies
# they have in common (swift-log, swift-nio, ...) are compiled once for all four (Docs/Testing.md).
#
# Sharing needs identical compiler commands. Each asks for the web traits in the same way
# (`dependent_traits`), and SwiftPM writes enabled traits (-DHummingbird -DVapor) in the order of a
# Set, which can differ from one process to the next unless hashing is deterministic: a different
# order is a different command, and every module of this package would be compiled again.
#
# None of them indexes while building (`dependent_build_options`): the index store costs a fifth of
# a debug build's CPU time, and only SwiftPM's test discovery reads it, for the test modules, which
# the web package indexes alone (CAPCTL_TEST_INDEX_STORE, read by its Package.swift).
# shellcheck shell=bash
dependents_scratch="$root/.build-web"
dependent_traits='traits: ["Hummingbird", "Vapor"]'
export SWIFT_DETERMINISTIC_HASHING=1
dependent_build_options=(--disable-index-store --scratch-path "$dependents_scratch")
triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["unversionedTriple"])')
export CAPCTL_TEST_INDEX_STORE="$dependents_scratch/$triple/debug/index/store"

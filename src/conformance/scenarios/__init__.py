"""Scenario files: schema, loader and the feature catalog."""

from conformance.scenarios.catalog import (
    FEATURE_IDS,
    FEATURES,
    GROUPS,
    Feature,
    all_features,
    feature,
    known_feature_ids,
    register_feature,
)
from conformance.scenarios.layers import MANIFEST, RootManifest, load_layered, read_manifest, stack_roots
from conformance.scenarios.loader import Scenario, deep_merge, load_scenario, load_scenarios
from conformance.scenarios.schema import CHECKS, ProviderEntry, ScenarioFile, known_checks, register_check_name

__all__ = [
    "CHECKS",
    "FEATURES",
    "FEATURE_IDS",
    "GROUPS",
    "MANIFEST",
    "Feature",
    "ProviderEntry",
    "RootManifest",
    "Scenario",
    "ScenarioFile",
    "all_features",
    "deep_merge",
    "feature",
    "known_checks",
    "known_feature_ids",
    "load_layered",
    "load_scenario",
    "load_scenarios",
    "read_manifest",
    "register_check_name",
    "register_feature",
    "stack_roots",
]

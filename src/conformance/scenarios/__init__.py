"""Scenario files: schema, loader and the feature catalog."""

from conformance.scenarios.catalog import FEATURE_IDS, FEATURES, GROUPS, Feature, feature
from conformance.scenarios.loader import Scenario, deep_merge, load_scenario, load_scenarios
from conformance.scenarios.schema import CHECKS, ProviderEntry, ScenarioFile, known_checks, register_check_name

__all__ = [
    "CHECKS",
    "FEATURES",
    "FEATURE_IDS",
    "GROUPS",
    "Feature",
    "ProviderEntry",
    "Scenario",
    "ScenarioFile",
    "deep_merge",
    "feature",
    "known_checks",
    "load_scenario",
    "load_scenarios",
    "register_check_name",
]

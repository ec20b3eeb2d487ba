"""The libraries' own warnings while the example adapters run them: as under the CLI, not errors
(the project's pytest configuration turns every warning into one). Each test module marks itself
with the ones its libraries raise."""

from __future__ import annotations

import pytest

DEPRECATED_MODEL = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
"""The anthropic SDK's notice on a recorded model name (pydantic-ai passes it on)."""

SERIALIZER = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
"""pydantic-ai serializing thinking parts."""

SAMPLING = pytest.mark.filterwarnings("ignore:Sampling parameters .* are not supported:UserWarning")
"""pydantic-ai dropping `temperature` for a reasoning model."""

TYPEDDICT = pytest.mark.filterwarnings("ignore:Items? .* on TypedDict")
"""litellm's import (pydantic on one of its TypedDicts)."""

INSTANCE_ATTRIBUTE = pytest.mark.filterwarnings("ignore:Accessing the .* attribute on the instance is deprecated")
"""pydantic's deprecation of reading a class attribute off an instance, raised inside litellm's stream
handling in some process states: an error there would break the library's call."""

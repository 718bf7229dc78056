"""Section roles of generated SDK docs (the ``kind`` facet), recognised from structure across generators."""

from __future__ import annotations

import pytest

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.chunk.kinds import with_kinds
from docs_mcp.parse.strategy import Strategy


def kinds(path: str, source: str, chunk_by: str = "h2") -> dict[str, str | None]:
    settings = FileSettings(strategy=Strategy(chunk_by=chunk_by))  # type: ignore[arg-type]
    chunks = with_kinds(chunk_file(source, path, settings).chunks)
    return {chunk.id.partition("#")[2]: chunk.metadata.get("kind") for chunk in chunks}


# Speakeasy: docs/sdks/<tag>/README.md, one ## per operation.
SPEAKEASY_OPERATIONS = """# Links

## Overview

### Available Operations

* [create](#create) - Create a link
* [list](#list) - List links
* [delete](#delete) - Delete a link

## create

Create a link for the authenticated workspace.

### Example Usage

```python
res = d.links.create(url="https://google.com")
```

### Parameters

| Parameter | Type | Required | Description |
| --------- | ---- | -------- | ----------- |
| `request` | [CreateLinkRequestBody](../../models/x.md) | :heavy_check_mark: | The request. |

### Response

**[components.LinkSchema](../../models/components/linkschema.md)**

### Errors

| Error Type | Status Code | Content Type |
| ---------- | ----------- | ------------ |
| errors.BadRequest | 400 | application/json |
"""

SPEAKEASY_MODEL = """# LinkSchema

## Example Usage

```typescript
let value: LinkSchema = { id: "<id>" };
```

## Fields

| Field | Type | Required | Description |
| ----- | ---- | -------- | ----------- |
| `id` | *string* | :heavy_check_mark: | The unique ID of the short link. |
"""

SPEAKEASY_ENUM = """# AccessLevel

## Example Usage

```typescript
let value: AccessLevel = "write";
```

## Values

```typescript
"write" | "read"
```
"""

SPEAKEASY_README = """# Acme Python SDK

## SDK Installation

```bash
pip install acme
```

## Retries

Pass a `RetryConfig` to the call.

## Error Handling

| Property | Type | Description |
| -------- | ---- | ----------- |
| `err.message` | `str` | Error message |

## Summary

Acme API: short links.
Made for sharing.
"""

# OpenAPI Generator: docs/LinksApi.md, one # per operation; docs/Link.md with ## Properties.
OPENAPI_GENERATOR_API = """# acme.LinksApi

Method | HTTP request | Description
------------- | ------------- | -------------
[**create_link**](LinksApi.md#create_link) | **POST** /links | Create a link

# **create_link**
> Link create_link(body)

Create a link

### Example

```python
api_instance.create_link(body)
```

### Parameters

Name | Type | Description  | Notes
------------- | ------------- | ------------- | -------------
 **body** | [**LinkBody**](LinkBody.md)| |

### Return type

[**Link**](Link.md)
"""

OPENAPI_GENERATOR_MODEL = """# Link

## Properties

Name | Type | Description | Notes
------------ | ------------- | ------------- | -------------
**id** | **str** | The link id |
"""

# Stainless: api.md, one ## per resource with its method signatures.
STAINLESS_API = """# Links

Types:

```python
from acme.types import Link
```

Methods:

- <code title="post /links">client.links.<a href="./l.py">create</a>(\\*\\*params) -> Link</code>
"""

# Fern: reference.md, a <details> block per method.
FERN_REFERENCE = """# Reference

## Links

<details><summary><code>client.links.<a href="/src/C.ts">create</a>({ ...p }) -> Link</code></summary>
<dl>
<dd>

#### 🔌 Usage

```typescript
await client.links.create({ url: "https://google.com" });
```

#### ⚙️ Parameters

**request:** `Acme.CreateLinkRequest`

</dd>
</dl>
</details>
"""


def test_speakeasy_operations_models_enums_and_readme_topics() -> None:
    assert kinds("python/docs/sdks/links/README.md", SPEAKEASY_OPERATIONS) == {
        "links/overview": "overview",
        "links/create": "operation",
    }
    assert set(kinds("ts/docs/models/components/linkschema.md", SPEAKEASY_MODEL).values()) == {"model"}
    assert set(kinds("ts/docs/models/components/accesslevel.md", SPEAKEASY_ENUM).values()) == {"model"}
    assert kinds("python/README.md", SPEAKEASY_README) == {
        "acme-python-sdk/sdk-installation": "topic",
        "acme-python-sdk/retries": "topic",
        "acme-python-sdk/error-handling": "topic",  # its properties table makes it no type
        "acme-python-sdk/summary": None,
    }


def test_an_operation_cut_into_subsections_is_an_operation_in_every_part() -> None:
    found = kinds("python/docs/sdks/links/README.md", SPEAKEASY_OPERATIONS, chunk_by="h3")
    assert {cid: kind for cid, kind in found.items() if cid.startswith("links/create")} == {
        "links/create": "operation",
        "links/create/example-usage": "operation",
        "links/create/parameters": "operation",
        "links/create/response": "operation",
        "links/create/errors": "operation",
    }


def test_a_section_of_nothing_but_links_is_an_overview_generator_comments_aside() -> None:
    one_operation = (
        "# EmbedTokens\n\n## Overview\n\n### Available Operations\n\n"
        "* [Referrals](#referrals) - Create a referrals embed token\n\n"
        "## Referrals\n\nCreate a referrals embed token.\n\n### Example Usage\n\n"
        "```go\nres, err := s.EmbedTokens.Referrals(ctx, nil)\n```\n"
    )
    assert kinds("go/docs/sdks/embedtokens/README.md", one_operation)["embedtokens/overview"] == "overview"
    resources = (
        "# Acme on Azure\n\n## Available Resources and Operations\n\n### [chat](docs/sdks/chat/README.md)\n\n"
        "* [stream](docs/sdks/chat/README.md#stream) - Stream chat completion\n"
        "* [create](docs/sdks/chat/README.md#create) - Chat Completion\n"
        "<!-- End Available Resources and Operations [operations] -->\n\n"
        "<!-- Start Server-sent event streaming [eventstream] -->\n"
        "## Retries\n\nSome text.\n"
    )
    found = kinds("packages/azure/README.md", resources)
    assert found["acme-on-azure/available-resources-and-operations"] == "overview"


@pytest.mark.parametrize(
    ("path", "source", "section", "kind"),
    [
        ("docs/LinksApi.md", OPENAPI_GENERATOR_API, "createlink", "operation"),
        ("docs/Link.md", OPENAPI_GENERATOR_MODEL, "link/properties", "model"),
        ("api.md", STAINLESS_API, "links", "operation"),
        ("reference.md", FERN_REFERENCE, "reference/links", "operation"),
    ],
)
def test_other_generators_layouts_fit(path: str, source: str, section: str, kind: str) -> None:
    assert kinds(path, source, chunk_by="h2")[section] == kind


def test_error_pages_by_folder_or_name() -> None:
    error = SPEAKEASY_MODEL.replace("LinkSchema", "RateLimitExceeded")
    assert set(kinds("go/docs/models/sdkerrors/ratelimitexceeded.md", error).values()) == {"error"}
    named = SPEAKEASY_MODEL.replace("LinkSchema", "NotFoundError")
    assert set(kinds("ts/docs/models/notfounderror.md", named).values()) == {"error"}


def test_plain_docs_get_no_kind_and_a_given_kind_wins() -> None:
    prose = "# Guide\n\n## Retries\n\nWhy retries matter.\n\n## Next\n\nMore.\n"
    assert set(kinds("guides/why.md", prose).values()) == {None}
    settings = FileSettings(strategy=Strategy(chunk_by="h2"), metadata={"kind": "guide"})  # type: ignore[arg-type]
    chunks = with_kinds(chunk_file(SPEAKEASY_MODEL, "docs/models/x.md", settings).chunks)
    assert {chunk.metadata["kind"] for chunk in chunks} == {"guide"}


def test_a_type_page_chunked_whole_is_a_model() -> None:
    assert set(
        kinds("ts/docs/models/components/linkschema.md", SPEAKEASY_MODEL, chunk_by="file").values()
    ) == {"model"}
    readme = kinds("python/README.md", SPEAKEASY_README, chunk_by="file")
    assert set(readme.values()) == {None}  # a README's properties table is no type


def test_an_oversized_operation_keeps_its_name_description_and_example_together() -> None:
    """Cut at its subheadings for size, the operation's first chunk still holds its example."""
    rows = "".join(f"| `p{n}` | str | no | Parameter number {n} of many. |\n" for n in range(60))
    source = SPEAKEASY_OPERATIONS.replace("| `request` |", rows + "| `request` |")
    settings = FileSettings(strategy=Strategy(chunk_by="h2", max_chunk_size=2000))  # type: ignore[arg-type]
    chunks = {
        c.id.partition("#")[2]: c for c in chunk_file(source, "docs/sdks/links/README.md", settings).chunks
    }
    lead = chunks["links/create"]
    assert "Create a link for the authenticated workspace." in lead.markdown
    assert "d.links.create(" in lead.markdown  # the example stays with the name
    assert "links/create/example-usage" not in chunks
    assert any(cid.startswith("links/create/parameters") for cid in chunks)  # the rest is still cut


def test_a_guide_with_a_field_table_is_no_type_page() -> None:
    guide = (
        "# Deployment\n\nHow to deploy.\n\n## Setup\n\nSteps.\n\n## Scaling\n\nMore steps.\n\n"
        "## Rollback\n\nUndo.\n\n## Properties\n\n| Name | Type | Description |\n| --- | --- | --- |\n"
        "| `replicas` | int | How many. |\n"
    )
    found = kinds("docs/deployment.md", guide)
    assert found["deployment/properties"] == "model"  # the table's own section
    assert found["deployment/setup"] is None and found["deployment/scaling"] is None

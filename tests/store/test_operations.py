"""Every operation's contract, on both backends (docs/store.md)."""

from __future__ import annotations

import pytest

from conformance.store import Store, coalesce, tree_json
from conformance.store.errors import StoreError
from tests.store.helpers import assistant, call, result, user


def kind_of(exc: pytest.ExceptionInfo[StoreError]) -> tuple[str, str | None]:
    return exc.value.kind, exc.value.where


def test_path_is_root_first_and_children_keep_creation_order(store: Store) -> None:
    r = store.create_root("Be terse.")
    u = store.append(r, user("2+2?"))
    a1 = store.append(u, assistant("4"))
    a2 = store.append(u, assistant("four"))
    assert [m["role"] for m in store.path(a2)] == ["system", "user", "assistant"]
    assert store.path(a2)[-1]["content"] == [{"type": "text", "text": "four"}]
    assert store.children(u) == [a1, a2]
    assert store.get(u).source_info == {"type": "append"}
    assert store.get(r).source_info == {"type": "system"}


def test_edit_of_a_leaf_is_in_place_and_marks_the_user(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("hi"))
    before = store.get(u)
    assert store.edit(u, "hello") == (u, False)
    after = store.get(u)
    assert after.message["content"] == [{"type": "text", "text": "hello"}]
    assert after.source_info == {"type": "user"}
    assert after.created == before.created and after.updated > before.updated


def test_edit_of_a_node_with_children_branches(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("hi"))
    a = store.append(u, assistant("yo"))
    new, branched = store.edit(u, "hello")
    assert branched and new != u
    assert store.get(new).parent == r
    assert store.get(u).message["content"][0]["text"] == "hi"
    assert store.children(u) == [a]
    assert store.children(r) == [u, new]


@pytest.mark.parametrize("content", ["", "   ", [], [{"type": "text", "text": ""}]])
def test_empty_edits_are_refused(store: Store, content: object) -> None:
    r = store.create_root("s")
    u = store.append(r, user("hi"))
    before = tree_json(store)
    with pytest.raises(StoreError) as exc:
        store.edit(u, content)
    assert kind_of(exc) == ("empty_edit", u)
    assert tree_json(store) == before


def test_the_root_cannot_be_edited_split_deleted_or_moved(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("hello there"))
    for action in (
        lambda: store.edit(r, "x"),
        lambda: store.split(r, 0, 1),
        lambda: store.delete(r),
        lambda: store.reparent(r, u),
    ):
        with pytest.raises(StoreError) as exc:
            action()
        assert kind_of(exc) == ("root_protected", r)


def test_split_inserts_the_head_above_the_node(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("first second"))
    a = store.append(u, assistant("ok"))
    head = store.split(u, 0, 5)
    assert store.get(head).parent == r and store.get(u).parent == head
    assert store.get(head).message["content"] == [{"type": "text", "text": "first"}]
    assert store.get(u).message["content"] == [{"type": "text", "text": " second"}]
    assert store.children(u) == [a]
    assert [m["content"][0]["text"] for m in store.path(a)[1:]] == ["first", " second", "ok"]


def test_split_refuses_tool_results_blank_parts_and_bad_boundaries(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("x   "))
    c = store.append(u, call("c1"))
    t = store.append(c, result("c1", "forty-two"))
    before = tree_json(store)
    cases = [
        ((t, 0, 3), ("split_tool", t)),
        ((u, 0, 1), ("split_too_small", u)),
        ((u, 0, 0), ("split_boundary", u)),
        ((u, 0, 4), ("split_boundary", u)),
        ((u, 3, None), ("split_boundary", u)),
        ((u, 0, None), ("split_boundary", u)),
    ]
    for args, expected in cases:
        with pytest.raises(StoreError) as exc:
            store.split(*args)
        assert kind_of(exc) == expected, args
    assert tree_json(store) == before


def test_delete_cascades_and_moves_or_removes_bookmarks(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("u"))
    a = store.append(u, assistant("a"))
    u2 = store.append(a, user("u2"))
    store.add_bookmark(r, "deep", u2)
    store.add_bookmark(r, "top", u)
    out = store.delete(a)
    assert out == {"deleted": [a, u2], "bookmarks_moved": {"deep": u}, "bookmarks_removed": []}
    assert store.bookmarks(r) == {"deep": u, "top": u}
    out = store.delete(u)
    assert out["bookmarks_removed"] == ["deep", "top"]
    assert store.bookmarks(r) == {}
    assert [n["id"] for n in tree_json(store)["nodes"]] == [r]
    with pytest.raises(StoreError) as exc:
        store.get(u2)
    assert kind_of(exc) == ("missing_node", u2)


def test_reparent_refuses_cycles_and_excess_depth(store: Store) -> None:
    store.max_depth = 3
    r = store.create_root("s")
    u = store.append(r, user("u"))
    a = store.append(u, assistant("a"))
    u2 = store.append(a, user("u2"))
    x = store.append(r, user("x"))
    y = store.append(x, assistant("y"))
    for node, target, kind in ((u, u2, "cycle"), (u, u, "cycle"), (x, a, "depth_limit")):
        with pytest.raises(StoreError) as exc:
            store.reparent(node, target)
        assert kind_of(exc) == (kind, node)
    with pytest.raises(StoreError) as exc:
        store.append(u2, assistant("too deep"))
    assert kind_of(exc) == ("depth_limit", u2)
    store.reparent(x, u)
    assert store.depth(y) == 3
    assert store.children(u) == [a, x]


def test_reparent_keeps_tool_results_below_their_call(store: Store) -> None:
    r = store.create_root("s")
    u = store.append(r, user("u"))
    c1 = store.append(u, call("c1"))
    c2 = store.append(u, call("c2"))
    t = store.append(c1, result("c1"))
    with pytest.raises(StoreError) as exc:
        store.reparent(t, c2)
    assert kind_of(exc) == ("uncorrelated_tool_result", t)
    with pytest.raises(StoreError) as exc:
        store.append(c2, result("c1"))
    assert kind_of(exc) == ("uncorrelated_tool_result", c2)


def test_bookmarks_resolve_and_refuse_other_conversations(store: Store) -> None:
    r = store.create_root("s")
    other = store.create_root("t")
    u = store.append(r, user("u"))
    store.add_bookmark(r, "here", u)
    assert store.resolve(r, "here") == u
    with pytest.raises(StoreError) as exc:
        store.add_bookmark(other, "here", u)
    assert kind_of(exc) == ("invalid_target", u)
    with pytest.raises(StoreError) as exc:
        store.resolve(r, "nope")
    assert kind_of(exc) == ("missing_bookmark", "nope")


def test_coalescing_merges_only_text_only_user_or_assistant_neighbours() -> None:
    text_u = {"role": "user", "content": [{"type": "text", "text": "a"}]}
    text_u2 = {"role": "user", "content": [{"type": "text", "text": "b"}]}
    image_u = {"role": "user", "content": [{"type": "image", "url": "https://example.com/x.png"}]}
    called = call("c1")["content"]
    with_call = {"role": "assistant", "content": called}
    text_a = {"role": "assistant", "content": [{"type": "text", "text": "c"}]}
    res1 = {"role": "tool_result", "tool_call_id": "c1", "content": [{"type": "text", "text": "1"}]}
    res2 = {"role": "tool_result", "tool_call_id": "c1", "content": [{"type": "text", "text": "2"}]}
    system = {"role": "system", "content": [{"type": "text", "text": "s"}]}
    assert coalesce([text_u, text_u2]) == [{"role": "user", "content": text_u["content"] + text_u2["content"]}]
    for pair in ([text_u, image_u], [with_call, text_a], [text_a, with_call], [res1, res2], [system, system]):
        assert coalesce(pair) == pair
    assert coalesce([text_u, text_a, text_a]) == [text_u, {"role": "assistant", "content": text_a["content"] * 2}]

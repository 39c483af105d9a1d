"""Tools for examples/eval-tool-use.jsonl: an order desk with one tool that needs approval.

    forge eval examples/eval-tool-use.jsonl --api chat --base-url http://127.0.0.1:11434/v1 \
        --model qwen3:8b --functions examples/eval_tools.py
"""

from forge_cli.tools import tool

_ORDERS = {4711: ("shipped", "Parcel Post")}


@tool(read_only=True)
def lookup_order(order_id: int) -> str:
    """Look up an order's state.

    Args:
        order_id: The order number.
    """
    state, _ = _ORDERS.get(order_id, ("unknown", ""))
    return f"order {order_id}: {state}"


@tool(read_only=True)
def carrier(order_id: int) -> str:
    """The carrier that ships an order.

    Args:
        order_id: The order number.
    """
    _, name = _ORDERS.get(order_id, ("", "unknown"))
    return f"order {order_id} travels with {name}"


@tool
def cancel_order(order_id: int) -> str:
    """Cancel an order (asks for approval).

    Args:
        order_id: The order number.
    """
    return f"order {order_id} cancelled"

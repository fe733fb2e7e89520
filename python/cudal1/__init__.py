"""cudal1 — the Python side of cudal1: a client of the reward service (`cudal1 serve`) and the
adapters TRL (cudal1.trl) and verl (cudal1.verl) call. The evaluator itself is C; nothing here
evaluates code."""
from .client import AsyncClient, Client, ServiceError, item_id

__all__ = ["Client", "AsyncClient", "ServiceError", "item_id"]

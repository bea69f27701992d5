"""Binding a session's corpus to an agent as live chat knowledge (SPEC §7, seed "Ground an
agent's chat").

An agent declares the chat knowledge it accepts (:class:`ChatKnowledge`); the service binds only
to a declaration of type MEMORY named ``session-knowledge`` with top-k 5 and refuses anything else
with a :class:`~ragls.errors.ChatBindingError` saying which part differs. The declaration is
checked before the corpus is looked at, so a misdeclared agent hears about it even while the
corpus is still empty. The bound :class:`SessionCorpus` holds the live service, not a copy, so
documents indexed later are visible without rebinding.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ragls.core.documents import SearchResult
from ragls.errors import ChatBindingError

CHAT_SOURCE = "session-knowledge"
CHAT_TOP_K = 5


class KnowledgeType(enum.Enum):
    """Kinds of knowledge an agent can declare; only MEMORY can carry a session corpus."""

    MEMORY = "memory"
    FILE = "file"
    WEB = "web"
    DATABASE = "database"


@dataclass(frozen=True, slots=True)
class ChatKnowledge:
    """An agent's declaration of one chat-knowledge source."""

    name: str
    type: KnowledgeType
    top_k: int


class Searchable(Protocol):
    """What a bound corpus needs of its session (a RagService), without importing it."""

    def search(self, query: str, top_k: int = ...) -> list[SearchResult]: ...

    def build_context_prompt(self, query: str, top_k: int = ...) -> str: ...


class SessionCorpus:
    """The live corpus handed to an agent: searches the session as it is at each call."""

    def __init__(self, service: Searchable, top_k: int) -> None:
        self._service = service
        self._top_k = top_k

    @property
    def top_k(self) -> int:
        return self._top_k

    def search(self, message: str) -> list[SearchResult]:
        """Results for the user's original chat message."""
        return self._service.search(message, self._top_k)

    def context_prompt(self, message: str) -> str:
        """The fenced context prompt for the user's original chat message."""
        return self._service.build_context_prompt(message, self._top_k)


@runtime_checkable
class ChatAgent(Protocol):
    """What ``attach_chat_to`` needs of an agent."""

    @property
    def chat_knowledge(self) -> Sequence[ChatKnowledge]: ...

    def bind_chat_knowledge(self, declaration: ChatKnowledge, corpus: SessionCorpus) -> None: ...


def session_declaration(agent: object) -> ChatKnowledge:
    """The agent's declaration for the session corpus, or ChatBindingError saying what is off."""
    declarations = getattr(agent, "chat_knowledge", None)
    if declarations is None or not callable(getattr(agent, "bind_chat_knowledge", None)):
        raise ChatBindingError(
            "agent must declare chat_knowledge and provide bind_chat_knowledge(declaration, corpus)"
        )
    matching = [
        declaration
        for declaration in declarations
        if isinstance(declaration, ChatKnowledge) and declaration.name == CHAT_SOURCE
    ]
    if not matching:
        names = sorted(
            str(getattr(declaration, "name", declaration)) for declaration in declarations
        )
        raise ChatBindingError(
            f"agent declares no chat knowledge named {CHAT_SOURCE!r} (it declares {names})"
        )
    if len(matching) > 1:
        raise ChatBindingError(f"agent declares chat knowledge {CHAT_SOURCE!r} more than once")
    declaration = matching[0]
    if declaration.type is not KnowledgeType.MEMORY:
        raise ChatBindingError(
            f"chat knowledge {CHAT_SOURCE!r} must be of type MEMORY, not {declaration.type.name}"
        )
    if declaration.top_k != CHAT_TOP_K:
        raise ChatBindingError(
            f"chat knowledge {CHAT_SOURCE!r} must search with top_k {CHAT_TOP_K}, "
            f"not {declaration.top_k}"
        )
    return declaration

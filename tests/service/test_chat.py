from __future__ import annotations

from collections.abc import Sequence

import pytest

from ragls import RagService
from ragls.errors import ChatBindingError
from ragls.service.chat import ChatKnowledge, KnowledgeType, SessionCorpus


class Agent:
    def __init__(self, *declarations: ChatKnowledge) -> None:
        self._declarations = declarations
        self.bound: list[tuple[ChatKnowledge, SessionCorpus]] = []

    @property
    def chat_knowledge(self) -> Sequence[ChatKnowledge]:
        return self._declarations

    def bind_chat_knowledge(self, declaration: ChatKnowledge, corpus: SessionCorpus) -> None:
        self.bound.append((declaration, corpus))


GOOD = ChatKnowledge(RagService.CHAT_SOURCE, KnowledgeType.MEMORY, RagService.CHAT_TOP_K)


def test_constants() -> None:
    assert RagService.CHAT_SOURCE == "session-knowledge"
    assert RagService.CHAT_TOP_K == 5


def test_binding_is_live() -> None:
    rag = RagService()
    rag.add_document("first fact about rockets")
    agent = Agent(GOOD)
    assert rag.attach_chat_to(agent) is True
    [(declaration, corpus)] = agent.bound
    assert declaration == GOOD
    assert corpus.top_k == 5
    assert len(corpus.search("rockets")) == 1
    rag.add_document("second fact about rockets")  # no rebinding needed
    assert len(corpus.search("rockets")) == 2
    assert corpus.context_prompt("rockets").startswith("<tnsai-memory>")


def test_empty_corpus_makes_the_call_a_no_op() -> None:
    agent = Agent(GOOD)
    assert RagService().attach_chat_to(agent) is False
    assert agent.bound == []


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        (Agent(), "no chat knowledge named 'session-knowledge'"),
        (Agent(ChatKnowledge("other", KnowledgeType.MEMORY, 5)), "no chat knowledge named"),
        (Agent(ChatKnowledge("session-knowledge", KnowledgeType.FILE, 5)), "MEMORY"),
        (Agent(ChatKnowledge("session-knowledge", KnowledgeType.MEMORY, 3)), "top_k 5"),
        (Agent(GOOD, GOOD), "more than once"),
        (object(), "must declare chat_knowledge"),
    ],
)
def test_wrong_declarations_are_refused_saying_which(agent: object, message: str) -> None:
    rag = RagService()
    rag.add_document("something")
    with pytest.raises(ChatBindingError, match=message):
        rag.attach_chat_to(agent)
    if isinstance(agent, Agent):
        assert agent.bound == []


def test_refusal_happens_even_while_the_corpus_is_empty() -> None:
    with pytest.raises(ChatBindingError):
        RagService().attach_chat_to(Agent())

import React, { useCallback, useEffect, useReducer, useState } from "react";

export interface Todo {
  id: number;
  title: string;
  done: boolean;
}

type Action = { type: "add"; title: string } | { type: "toggle"; id: number };

function reducer(todos: Todo[], action: Action): Todo[] {
  switch (action.type) {
    case "add":
      return [...todos, { id: todos.length + 1, title: action.title, done: false }];
    case "toggle":
      return todos.map((todo) => (todo.id === action.id ? { ...todo, done: !todo.done } : todo));
  }
}

export const TodoItem = ({ todo, onToggle }: { todo: Todo; onToggle: (id: number) => void }) => (
  <li className={todo.done ? "done" : ""} onClick={() => onToggle(todo.id)}>
    {todo.title}
  </li>
);

export function TodoList({ initial }: { initial: Todo[] }) {
  const [todos, dispatch] = useReducer(reducer, initial);
  const [draft, setDraft] = useState("");

  useEffect(() => {
    document.title = `${todos.filter((t) => !t.done).length} left`;
  }, [todos]);

  const toggle = useCallback((id: number) => dispatch({ type: "toggle", id }), []);

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        dispatch({ type: "add", title: draft });
        setDraft("");
      }}
    >
      <input value={draft} onChange={(event) => setDraft(event.target.value)} />
      <ul>
        {todos.map((todo) => (
          <TodoItem key={todo.id} todo={todo} onToggle={toggle} />
        ))}
      </ul>
    </form>
  );
}

export class ErrorBoundary extends React.Component<{ children: React.ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError = () => ({ failed: true });

  render() {
    return this.state.failed ? <p>Something went wrong.</p> : this.props.children;
  }
}

export default TodoList;

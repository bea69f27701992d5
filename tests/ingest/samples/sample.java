package com.example.library;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A lending library. */
public class Library {
    public enum Status { AVAILABLE, LENT }

    public record Book(String isbn, String title, Status status) {
        public Book lend() {
            return new Book(isbn, title, Status.LENT);
        }
    }

    public interface Notifier {
        void overdue(Loan loan);
    }

    public @interface Audited {
        enum Level { LOW, HIGH }

        Level level() default Level.LOW;
    }

    private final List<Book> books = new ArrayList<>();
    private final List<Loan> loans = new ArrayList<>();
    private final Notifier notifier;

    public Library(Notifier notifier) {
        this.notifier = notifier;
    }

    public void add(Book book) {
        books.add(book);
    }

    public Optional<Book> find(String isbn) {
        return books.stream().filter(b -> b.isbn().equals(isbn)).findFirst();
    }

    public Loan lend(String isbn, String member, LocalDate due) {
        Book book = find(isbn).orElseThrow(() -> new IllegalArgumentException(isbn));
        if (book.status() == Status.LENT) {
            throw new IllegalStateException("already lent: " + isbn);
        }
        books.set(books.indexOf(book), book.lend());
        Loan loan = new Loan(isbn, member, due);
        loans.add(loan);
        return loan;
    }

    public void checkOverdue(LocalDate today) {
        for (Loan loan : loans) {
            if (loan.due().isBefore(today)) {
                notifier.overdue(loan);
            }
        }
    }

    static final class Loan {
        private final String isbn;
        private final String member;
        private final LocalDate due;

        Loan(String isbn, String member, LocalDate due) {
            this.isbn = isbn;
            this.member = member;
            this.due = due;
        }

        LocalDate due() {
            return due;
        }

        @Override
        public String toString() {
            return member + " has " + isbn + " until " + due;
        }
    }
}

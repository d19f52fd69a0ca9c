package dev.countersign.agent.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A lexical reading of PostgreSQL text: words, quoted identifiers (with doubled quotes unescaped), string constants
 * (standard, {@code E''} with backslash escapes, dollar-quoted), numbers, positional parameters and punctuation;
 * comments (line and nested block) are dropped. It is not a parser: it knows no grammar, only where names, strings and
 * comments begin and end, which is what the guard and the identifier check need to not be fooled by a keyword inside a
 * string.
 */
final class SqlText {

    enum Kind {
        /** An unquoted word; {@link Token#value()} is lower case, as PostgreSQL folds it. */
        WORD,
        /** A {@code "quoted"} identifier; {@link Token#value()} is the name with doubled quotes unescaped. */
        QUOTED, STRING, NUMBER,
        /** {@code $1}, {@code $2}, ... */
        PARAM,
        /** One punctuation character, or {@code ::}. */
        SYMBOL
    }

    record Token(Kind kind, String value) {

        boolean isWord(String lowerCase) {
            return kind == Kind.WORD && value.equals(lowerCase);
        }

        boolean isSymbol(String symbol) {
            return kind == Kind.SYMBOL && value.equals(symbol);
        }

        boolean isName() {
            return kind == Kind.WORD || kind == Kind.QUOTED;
        }

        /** As the name would be written back: quoted names keep their quotes. */
        String display() {
            return kind == Kind.QUOTED ? '"' + value.replace("\"", "\"\"") + '"' : value;
        }
    }

    /** The tokens, or the reason the text cannot be read (an unterminated string, identifier or comment). */
    record Reading(List<Token> tokens, String unreadable) {

        boolean readable() {
            return unreadable == null;
        }
    }

    private SqlText() {
    }

    static Reading read(String sql) {
        List<Token> tokens = new ArrayList<>();
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
            } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                int depth = 0;
                do {
                    if (sql.startsWith("/*", i)) {
                        depth++;
                        i += 2;
                    } else if (sql.startsWith("*/", i)) {
                        depth--;
                        i += 2;
                    } else {
                        i++;
                    }
                } while (depth > 0 && i < n);
                if (depth > 0) {
                    return new Reading(tokens, "a block comment is not closed");
                }
            } else if (c == '"') {
                StringBuilder name = new StringBuilder();
                i++;
                boolean closed = false;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (d == '"') {
                        if (i + 1 < n && sql.charAt(i + 1) == '"') {
                            name.append('"');
                            i += 2;
                            continue;
                        }
                        closed = true;
                        i++;
                        break;
                    }
                    name.append(d);
                    i++;
                }
                if (!closed) {
                    return new Reading(tokens, "a quoted identifier is not closed");
                }
                tokens.add(new Token(Kind.QUOTED, name.toString()));
            } else if (c == '\'' || ((c == 'e' || c == 'E') && i + 1 < n && sql.charAt(i + 1) == '\'')) {
                boolean backslashes = c != '\'';
                i += backslashes ? 2 : 1;
                boolean closed = false;
                while (i < n) {
                    char d = sql.charAt(i);
                    if (backslashes && d == '\\') {
                        i += 2;
                        continue;
                    }
                    if (d == '\'') {
                        if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                            i += 2;
                            continue;
                        }
                        closed = true;
                        i++;
                        break;
                    }
                    i++;
                }
                if (!closed) {
                    return new Reading(tokens, "a string constant is not closed");
                }
                tokens.add(new Token(Kind.STRING, "'...'"));
            } else if (c == '$' && i + 1 < n && Character.isDigit(sql.charAt(i + 1))) {
                int start = i++;
                while (i < n && Character.isDigit(sql.charAt(i))) {
                    i++;
                }
                tokens.add(new Token(Kind.PARAM, sql.substring(start, i)));
            } else if (c == '$') {
                int end = sql.indexOf('$', i + 1);
                String tag = end < 0 ? null : sql.substring(i, end + 1);
                if (tag == null || !tag.substring(1, tag.length() - 1).chars()
                        .allMatch(ch -> Character.isLetterOrDigit(ch) || ch == '_')) {
                    tokens.add(new Token(Kind.SYMBOL, "$"));
                    i++;
                    continue;
                }
                int close = sql.indexOf(tag, end + 1);
                if (close < 0) {
                    return new Reading(tokens, "a dollar-quoted string is not closed");
                }
                tokens.add(new Token(Kind.STRING, "$$...$$"));
                i = close + tag.length();
            } else if (Character.isLetter(c) || c == '_') {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_'
                        || sql.charAt(i) == '$')) {
                    i++;
                }
                tokens.add(new Token(Kind.WORD, sql.substring(start, i).toLowerCase(Locale.ROOT)));
            } else if (Character.isDigit(c) || (c == '.' && i + 1 < n && Character.isDigit(sql.charAt(i + 1)))) {
                int start = i;
                while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.')) {
                    i++;
                }
                tokens.add(new Token(Kind.NUMBER, sql.substring(start, i)));
            } else if (c == ':' && i + 1 < n && sql.charAt(i + 1) == ':') {
                tokens.add(new Token(Kind.SYMBOL, "::"));
                i += 2;
            } else {
                tokens.add(new Token(Kind.SYMBOL, String.valueOf(c)));
                i++;
            }
        }
        return new Reading(tokens, null);
    }

    /** The tokens split at top-level semicolons, empty statements left out. */
    static List<List<Token>> statements(List<Token> tokens) {
        List<List<Token>> statements = new ArrayList<>();
        List<Token> current = new ArrayList<>();
        for (Token token : tokens) {
            if (token.isSymbol(";")) {
                if (!current.isEmpty()) {
                    statements.add(current);
                }
                current = new ArrayList<>();
            } else {
                current.add(token);
            }
        }
        if (!current.isEmpty()) {
            statements.add(current);
        }
        return statements;
    }
}

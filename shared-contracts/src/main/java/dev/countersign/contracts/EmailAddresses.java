package dev.countersign.contracts;

import java.util.regex.Pattern;

/** The one rule for an e-mail address Countersign sends to: an action's recipient, a person told of an action. */
public final class EmailAddresses {

    private static final Pattern PLAIN_ADDRESS = Pattern.compile("[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
            + "(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+");

    /** RFC 5321's limit on a path. */
    public static final int MAX_LENGTH = 254;

    private EmailAddresses() {
    }

    /**
     * One plain address: a dot-atom local part and a host name (RFC 5322's common form), at most {@value #MAX_LENGTH}
     * characters, with no display name, quotes, comment, list or line break to smuggle another recipient or header in.
     * Stricter than the standard on purpose.
     */
    public static boolean isPlain(String address) {
        return address != null && address.length() <= MAX_LENGTH && PLAIN_ADDRESS.matcher(address).matches();
    }
}
